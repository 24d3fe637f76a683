/** Colours of series, in order (teal first, as the product's accent). */
export const PALETTE = [
  '#0f766e',
  '#2563eb',
  '#d97706',
  '#7c3aed',
  '#db2777',
  '#059669',
  '#0891b2',
  '#ca8a04',
  '#4f46e5',
  '#dc2626',
  '#65a30d',
  '#9333ea',
];
export const OTHER_COLOR = '#94a3b8';
