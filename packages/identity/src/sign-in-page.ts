/**
 * The sign-in and sign-out pages: plain HTML with no script and no inline style, so the strict Content-Security-Policy
 * below holds. Everything they show of a request is escaped.
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!,
  );

function page(title: string, body: string, stylesheet: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escaped(title)}</title>
<link rel="stylesheet" href="${escaped(stylesheet)}">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface SignInForm {
  readonly action: string;
  readonly stylesheet: string;
  readonly username?: string;
  readonly error?: string;
}

/** The form a member of staff signs in with; `error` says why the last try failed. */
export function signInPage({ action, stylesheet, username = '', error }: SignInForm): string {
  const alert = error ? `<p role="alert" id="sign-in-error">${escaped(error)}</p>\n` : '';
  const described = error ? ' aria-describedby="sign-in-error"' : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>
${alert}<form method="post" action="${escaped(action)}"${described}>
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escaped(username)}"${username ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>`,
    stylesheet,
  );
}

/** A page that says something went wrong with the sign-in itself (expired, unknown), and what to do. */
export function messagePage(title: string, message: string, stylesheet: string): string {
  return page(title, `<h1>${escaped(title)}</h1>\n<p>${escaped(message)}</p>`, stylesheet);
}

/** oidc-provider's sign-out question around its own form (`form`, already HTML, with its anti-forgery token). */
export function signOutPage(form: string, stylesheet: string): string {
  return page(
    'Sign out',
    `<h1>Sign out?</h1>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>`,
    stylesheet,
  );
}

export const STYLESHEET = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1d21}
main{max-width:22rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0003}
h1{font-size:1.5rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin-top:1rem}
input{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;border:1px solid #8a8f98;border-radius:4px}
button{margin-top:1.5rem;margin-right:.5rem;padding:.5rem 1rem;font:inherit;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
[role=alert]{color:#9f1239;background:#ffe4e6;padding:.5rem;border-radius:4px}
`;
