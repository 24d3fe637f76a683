import { useState } from 'preact/hooks';
import { signIn } from './session';

/** Paste a token, or follow the sign-in link `npm start` prints. */
export function SignIn({ notice }: { notice?: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(token);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="main">
      <form class="sign-in-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <div class="brand large">
          <span class="brand-mark" aria-hidden="true">
            c
          </span>
          corelite
        </div>
        <h1 id="sign-in-title">Sign in to the console</h1>
        {notice && (
          <p class="notice" role="alert">
            {notice}
          </p>
        )}
        <label for="token">Access or refresh token</label>
        <textarea
          id="token"
          name="token"
          rows={5}
          value={token}
          onInput={(event) => setToken((event.target as HTMLTextAreaElement).value)}
          placeholder="eyJhbGciOi…"
          spellcheck={false}
          required
        />
        {error && (
          <p class="field-error" role="alert">
            {error}
          </p>
        )}
        <button class="button primary wide" type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          <code>npm start</code> prints a sign-in link for the bootstrap System Admin. Another user's token:{' '}
          <code>npm run -s token -- --sub &lt;user&gt;</code>. The token is kept in this tab only and forgotten when you sign out or close
          it.
        </p>
      </form>
    </main>
  );
}
