import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { CommonEnvironment } from '@lib/config';
import '@lib/messaging';
// the two service modules import every controller, and with them every DTO
import './authz/src/authz.module';
import './costasset/src/costasset.module';

type Target = abstract new (...args: never[]) => object;

/** Every validated class (request DTOs, query DTOs, NATS messages), environments left out. */
function validatedClasses(): Target[] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Target, ValidationMetadata[]> };
  return [...storage.validationMetadatas.keys()].filter(
    (target) => typeof target === 'function' && !(target.prototype instanceof CommonEnvironment) && target !== CommonEnvironment,
  );
}

function rulesByProperty(target: Target): Map<string, ValidationMetadata[]> {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(target as never, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const rule of metadata) byProperty.set(rule.propertyName, [...(byProperty.get(rule.propertyName) ?? []), rule]);
  return byProperty;
}

const named = (rules: ValidationMetadata[], name: string) => rules.filter((rule) => rule.name === name || rule.type === name);

/** Anchored, and without `*`, `+` or `{n,}` outside character classes: matches strings of a bounded length only. */
function boundedPattern(pattern: RegExp): boolean {
  const source = pattern.source.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  return source.startsWith('^') && source.endsWith('$') && !/[*+]|\{\d+,\}/.test(source);
}

function lengthBounded(rules: ValidationMetadata[]): boolean {
  if (named(rules, 'maxLength').length > 0) return true;
  if (named(rules, 'isLength').some((rule) => rule.constraints?.[1] !== undefined)) return true;
  if (['isIn', 'isEnum', 'isUUID', 'isMongoId'].some((name) => named(rules, name).length > 0)) return true;
  return named(rules, 'matches').some((rule) => boundedPattern(rule.constraints[0] as RegExp));
}

describe('validation rules of every DTO and message', () => {
  const classes = validatedClasses();
  const properties = classes.flatMap((target) =>
    [...rulesByProperty(target)].map(([property, rules]) => ({ where: `${target.name}.${property}`, rules })),
  );

  it('finds the DTOs of both services', () => {
    expect(classes.map((target) => target.name)).toEqual(
      expect.arrayContaining(['BudgetRequest', 'CreateTeamRequest', 'ResolvePrincipalRequest']),
    );
    expect(classes.length).toBeGreaterThan(60);
  });

  it('gives every string a maximum length', () => {
    const stringish = properties.filter(({ rules }) => ['isString', 'matches', 'safeText'].some((name) => named(rules, name).length > 0));
    expect(stringish.length).toBeGreaterThan(100);
    expect(stringish.filter(({ rules }) => !lengthBounded(rules)).map(({ where }) => where)).toEqual([]);
  });

  it('gives every array a maximum size', () => {
    const arrays = properties.filter(({ rules }) => named(rules, 'isArray').length > 0);
    expect(arrays.filter(({ rules }) => named(rules, 'arrayMaxSize').length === 0).map(({ where }) => where)).toEqual([]);
  });

  it('checks the presence of every nested object and array it validates (class-validator skips a missing one)', () => {
    const nested = properties.filter(({ rules }) => named(rules, 'nestedValidation').length > 0);
    expect(nested.length).toBeGreaterThan(5);
    const unchecked = nested.filter(
      ({ rules }) =>
        named(rules, 'isDefined').length === 0 &&
        named(rules, 'conditionalValidation').length === 0 &&
        named(rules, 'isArray').length === 0,
    );
    expect(unchecked.map(({ where }) => where)).toEqual([]);
  });
});
