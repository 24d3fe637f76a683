import type { ComponentChildren } from 'preact';

/**
 * The frame of every page: its title (focused after a navigation, see app.tsx), a line saying what
 * the page is for, the page's actions beside the title, an optional toolbar under it, then the body.
 */
export function Page({
  title,
  subtitle,
  actions,
  toolbar,
  testId,
  ready,
  children,
}: {
  title: string;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  toolbar?: ComponentChildren;
  testId?: string;
  /** `data-ready`, set once the page is interactive (the overview's timing mark). */
  ready?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <div class="page" data-testid={testId} data-ready={ready ? 'true' : undefined}>
      <header class="page-header">
        <div>
          <h1 tabIndex={-1} id="page-title">
            {title}
          </h1>
          {subtitle && <p class="muted">{subtitle}</p>}
        </div>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {toolbar}
      {children}
    </div>
  );
}
