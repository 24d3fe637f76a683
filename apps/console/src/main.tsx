import { render } from 'preact';
import { App } from './app';
import { signInFromFragment, takeNotice } from './auth/session';
import './styles.css';

/** Takes the sign-in link's token out of the address first, then shows the console. */
void signInFromFragment().then((problem) => {
  render(<App notice={problem ?? takeNotice()} />, document.getElementById('app')!);
});
