/** Short names for the generated schemas the pages use (no hand-written request or response types). */
import type { components as AuthzComponents, operations as AuthzOperations } from './generated/authz';
import type { components as CostassetComponents, operations as CostassetOperations } from './generated/costasset';

type Costasset = CostassetComponents['schemas'];
type Authz = AuthzComponents['schemas'];

export type Costs = Costasset['CostsResponse'];
export type CostSeries = Costasset['CostSeriesDto'];
export type CostsQuery = NonNullable<CostassetOperations['CostsController_explore']['parameters']['query']>;
export type Budget = Costasset['BudgetResponse'];
export type BudgetRequest = Costasset['BudgetRequest'];
export type BudgetaryUnit = Costasset['BudgetaryUnit'];
export type Upload = Costasset['UploadRecordDto'];
export type Job = Costasset['JobDto'];
export type ResourceGroup = Costasset['ResourceGroupResponse'];
export type ReportModel = Costasset['ReportModelResponse'];
export type ReportExecution = Costasset['ReportExecutionResponse'];
export type ExtensionValidation = Costasset['ExtensionValidation'];
export type Me = Authz['MeResponse'];
export type AuthTypeConfiguration = Authz['AuthTypeConfigurationResponse'];
export type Team = Authz['TeamResponse'];
export type User = Authz['UserResponse'];
export type ConfigValue = Authz['ConfigValueResponse'];
export type FeatureFlag = Authz['FeatureFlagResponse'];
export type AuditRecord = Authz['AuditRecordResponse'];
export type AuditQuery = NonNullable<AuthzOperations['AuditController_list']['parameters']['query']>;
export type FocusExportQuery = Omit<NonNullable<CostassetOperations['FocusExportController_export']['parameters']['query']>, 'format'>;
export type FocusUploadRequest = Costasset['CreateFocusUploadRequest'];
