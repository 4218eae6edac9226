import { useEffect, useState } from 'react';
import { LowStockPage } from './low-stock/low-stock-page';
import { OrderPage } from './orders/order-page';
import { OrdersPage } from './orders/orders-page';
import { ProblemMessage } from './problem-message';
import { NewProductPage } from './products/new-product-page';
import { ProductPage } from './products/product-page';
import { ProductsPage } from './products/products-page';
import { BASE, Link, navigate, useLocation } from './router';
import { type Session, signIn, startSignIn } from './session';
import { TransfersPage } from './transfers/transfers-page';
import { asProblem, useLoaded } from './use-api';

/** The page for a path under /admin/. */
function Page({ session, scopes }: { session: Session; scopes: Set<string> }) {
  const { pathname } = useLocation();
  if (pathname === `${BASE}/products/new`) return <NewProductPage session={session} />;
  const product = new RegExp(`^${BASE}/products/(\\d+)$`).exec(pathname);
  if (product) return <ProductPage session={session} id={Number(product[1])} scopes={scopes} />;
  if (pathname === `${BASE}/transfers`) return <TransfersPage session={session} scopes={scopes} />;
  if (pathname === `${BASE}/low-stock`) return <LowStockPage session={session} />;
  const order = new RegExp(`^${BASE}/orders/([0-9a-fA-F-]{36})$`).exec(pathname);
  if (order) return <OrderPage session={session} id={order[1]!} scopes={scopes} />;
  if (pathname === `${BASE}/orders`) return <OrdersPage session={session} />;
  if (pathname === `${BASE}/` || pathname === `${BASE}/products`)
    return <ProductsPage session={session} scopes={scopes} />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no page at {pathname}. <Link href={`${BASE}/products`}>Products</Link>
      </p>
    </>
  );
}

function SignedIn({ session }: { session: Session }) {
  const [scopes] = useLoaded(() => session.scopes(), session.username);
  const [problem, setProblem] = useState<ReturnType<typeof asProblem>>();
  const signOut = () => session.signOut().catch((error: unknown) => setProblem(asProblem(error)));
  return (
    <>
      <header className="top">
        <nav aria-label="Main">
          <Link href={`${BASE}/products`}>Products</Link>
          <Link href={`${BASE}/transfers`}>Transfers</Link>
          <Link href={`${BASE}/low-stock`}>Low stock</Link>
          <Link href={`${BASE}/orders`}>Orders</Link>
        </nav>
        <span className="who">{session.username}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
        <ProblemMessage problem={problem} />
      </header>
      <main>
        {scopes.state === 'loaded' ? <Page session={session} scopes={scopes.value} /> : <p role="status">Loading…</p>}
      </main>
    </>
  );
}

type AppState =
  | { readonly kind: 'starting' }
  | { readonly kind: 'signed-in'; readonly session: Session }
  | { readonly kind: 'signed-out' }
  | { readonly kind: 'failed'; readonly message: string };

/** Signs in (or finishes signing in), then shows the page the app was opened at. */
export function App() {
  const [state, setState] = useState<AppState>({ kind: 'starting' });
  useEffect(() => {
    signIn().then(
      (outcome) => {
        if (outcome.kind === 'signed-in') {
          navigate(outcome.path);
          setState({ kind: 'signed-in', session: outcome.session });
        } else if (outcome.kind === 'signed-out') setState({ kind: 'signed-out' });
      },
      (error: unknown) => setState({ kind: 'failed', message: asProblem(error).detail }),
    );
  }, []);
  if (state.kind === 'signed-in') return <SignedIn session={state.session} />;
  return (
    <main className="narrow">
      <h1>Back office</h1>
      {state.kind === 'starting' && <p role="status">Signing in…</p>}
      {state.kind === 'signed-out' && <p>You have signed out.</p>}
      {state.kind === 'failed' && <p role="alert">The sign-in failed: {state.message}</p>}
      {(state.kind === 'signed-out' || state.kind === 'failed') && (
        <button type="button" onClick={() => void startSignIn()}>
          Sign in
        </button>
      )}
    </main>
  );
}
