import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { authz, unwrap } from './api/client';
import type { ApiError } from './api/problem';
import type { Me } from './api/types';
import { MeContext } from './auth/me';
import { isSignedIn, onSessionChange, signOut, takeNotice } from './auth/session';
import { SignIn } from './auth/sign-in';
import { ErrorBox, Loading } from './components/states';
import { tracesAvailable } from './pages/traces-view';

const Overview = lazy(() => import('./pages/overview'));
const Explorer = lazy(() => import('./pages/explorer'));
const Budgets = lazy(() => import('./pages/budgets'));
const Data = lazy(() => import('./pages/data'));
const ResourceGroups = lazy(() => import('./pages/resource-groups'));
const ReportModels = lazy(() => import('./pages/report-models'));
const Anomalies = lazy(() => import('./pages/anomalies'));
const Alerts = lazy(() => import('./pages/alerts'));
const Allocation = lazy(() => import('./pages/allocation'));
const Connections = lazy(() => import('./pages/connections'));
const Traces = lazy(() => import('./pages/traces'));
const Administration = lazy(() => import('./pages/admin/administration'));
const NotFound = lazy(() => import('./pages/not-found'));

const NAVIGATION = [
  { href: '/', label: 'Overview', icon: 'M3 12l9-8 9 8M5 10v10h5v-6h4v6h5V10' },
  { href: '/explorer', label: 'Cost explorer', icon: 'M4 20V10m6 10V4m6 16v-8m4 8H2' },
  { href: '/budgets', label: 'Budgets', icon: 'M12 3a9 9 0 1 0 9 9h-9z M14 2.5A8 8 0 0 1 21.5 10H14z' },
  { href: '/anomalies', label: 'Anomalies', icon: 'M3 18l5-5 4 3 4-11 5 13M3 21h18' },
  {
    href: '/data',
    label: 'Data',
    icon: 'M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3zm0 0v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3',
  },
  { href: '/resource-groups', label: 'Resource groups', icon: 'M4 4h7v7H4zm9 0h7v7h-7zM4 13h7v7H4zm9 0h7v7h-7z' },
  { href: '/report-models', label: 'Report models', icon: 'M6 2h9l5 5v15H6zM14 2v6h6M9 13h8M9 17h8' },
] as const;
const ADMIN_NAVIGATION = [
  { href: '/alerts', label: 'Alerts', icon: 'M6 16v-5a6 6 0 0 1 12 0v5l2 2H4zM10 21h4' },
  { href: '/allocation', label: 'Allocation', icon: 'M12 3v9l7 4M12 12l-7 4M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18' },
  { href: '/connections', label: 'Connections', icon: 'M9 15l6-6M11 6l1-1a4.2 4.2 0 0 1 6 6l-1 1M13 18l-1 1a4.2 4.2 0 0 1-6-6l1-1' },
  { href: '/admin', label: 'Administration', icon: 'M12 2l8 4v6c0 5-3.4 8.6-8 10-4.6-1.4-8-5-8-10V6z' },
] as const;
/** Shown to System Admins only while the gateway proxies a local traces receiver (`npm start -- --traces`). */
const TRACES_NAVIGATION = { href: '/traces', label: 'Traces', icon: 'M3 6h10M6 12h12M9 18h9M3 3v18' } as const;

function NavIcon({ path }: { path: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linejoin="round"
      stroke-linecap="round"
    >
      <path d={path} />
    </svg>
  );
}

function Shell({ me }: { me: Me }) {
  const { path } = useLocation();
  const [firstPath] = useState(path);
  const [traces, setTraces] = useState(false);
  useEffect(() => {
    if (me.is_system_admin) void tracesAvailable().then(setTraces);
  }, [me.is_system_admin]);
  const items = me.is_system_admin ? [...NAVIGATION, ...ADMIN_NAVIGATION, ...(traces ? [TRACES_NAVIGATION] : [])] : NAVIGATION;
  const active = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  useEffect(() => {
    // after a navigation, move focus to the new page's title (screen readers announce it)
    if (path === firstPath) return;
    const timer = setInterval(() => {
      const title = document.getElementById('page-title');
      if (title) {
        title.focus();
        clearInterval(timer);
      }
    }, 50);
    setTimeout(() => clearInterval(timer), 3000);
    return () => clearInterval(timer);
  }, [path]);
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <nav class="sidebar" aria-label="Main">
        <a class="brand" href="/">
          <span class="brand-mark" aria-hidden="true">
            c
          </span>
          corelite
        </a>
        <ul>
          {items.map((item) => (
            <li key={item.href}>
              <a href={item.href} class={active(item.href) ? 'active' : ''} aria-current={active(item.href) ? 'page' : undefined}>
                <NavIcon path={item.icon} />
                {item.label}
              </a>
            </li>
          ))}
        </ul>
        <div class="sidebar-footer">
          <a href="/docs/" target="_blank" rel="noreferrer">
            Guides
          </a>
          <a href="/docs/costasset" target="_blank" rel="noreferrer">
            API reference
          </a>
        </div>
      </nav>
      <div class="content">
        <header class="topbar">
          <div class="tenant">
            Tenant <strong>{me.tenant_id}</strong>
          </div>
          <div class="user">
            <span class="avatar" aria-hidden="true">
              {me.user_id.slice(0, 1).toUpperCase()}
            </span>
            <span>
              <strong data-testid="user-id">{me.user_id}</strong>
              <span class="muted small">
                {' '}
                {me.is_system_admin
                  ? 'System Admin'
                  : me.teams.length
                    ? `member of ${me.teams.map((team) => team.team_code).join(', ')}`
                    : 'no team'}
              </span>
            </span>
            <button type="button" class="button ghost" onClick={() => signOut()}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          <ErrorBoundary>
            <Router>
              <Route path="/" component={Overview} />
              <Route path="/explorer" component={Explorer} />
              <Route path="/budgets" component={Budgets} />
              <Route path="/data" component={Data} />
              <Route path="/resource-groups" component={ResourceGroups} />
              <Route path="/report-models" component={ReportModels} />
              <Route path="/anomalies" component={Anomalies} />
              <Route path="/alerts" component={Alerts} />
              <Route path="/allocation" component={Allocation} />
              <Route path="/allocation/:section" component={Allocation} />
              <Route path="/connections" component={Connections} />
              <Route path="/traces" component={Traces} />
              <Route path="/admin" component={Administration} />
              <Route path="/admin/:section" component={Administration} />
              <Route default component={NotFound} />
            </Router>
          </ErrorBoundary>
        </main>
      </div>
    </div>
  );
}

function SignedIn() {
  const [state, setState] = useState<{ me?: Me; error?: ApiError }>({});
  const load = () => {
    setState({});
    unwrap(authz.GET('/core/authorization/v1/me')).then(
      (me) => setState({ me }),
      (error: ApiError) => setState({ error }),
    );
  };
  useEffect(load, []);
  if (state.error) {
    return (
      <main class="centered" id="main">
        <ErrorBox error={state.error} onRetry={load} />
      </main>
    );
  }
  if (!state.me) {
    return (
      <main class="centered" id="main">
        <Loading label="Signing in…" />
      </main>
    );
  }
  return (
    <MeContext.Provider value={state.me}>
      <LocationProvider>
        <Shell me={state.me} />
      </LocationProvider>
    </MeContext.Provider>
  );
}

export function App({ notice }: { notice?: string }) {
  const [signedIn, setSignedIn] = useState(isSignedIn());
  const [message, setMessage] = useState(notice);
  useEffect(
    () =>
      onSessionChange(() => {
        const now = isSignedIn();
        if (!now) setMessage(takeNotice());
        setSignedIn(now);
      }),
    [],
  );
  return signedIn ? <SignedIn key="in" /> : <SignIn notice={message} />;
}
