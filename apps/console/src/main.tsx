import { render } from 'preact';
import { App } from './app';
import { isSignedIn, signInFromFragment, takeNotice } from './auth/session';
import { prefetchOverview } from './pages/overview-data';
import './styles.css';

/**
 * Takes the sign-in link's token out of the address first, then shows the console. When the
 * overview is the first page, its code and its main figures are fetched while `/me` answers.
 */
void signInFromFragment().then((problem) => {
  if (location.pathname === '/' && isSignedIn()) {
    prefetchOverview();
    void import('./pages/overview');
    void import('./components/echarts');
  }
  render(<App notice={problem ?? takeNotice()} />, document.getElementById('app')!);
});

// a sign-in link opened in a tab that already shows the console changes only the fragment
window.addEventListener('hashchange', () => void signInFromFragment());
