export const FLAG_VALUES = ['true', 'false'] as const;
export type FlagValue = (typeof FLAG_VALUES)[number];

export const isFlagValue = (value: unknown): value is FlagValue => FLAG_VALUES.includes(value as FlagValue);
