// What a browser tab shows when it has no access token: the address bar never keeps the token
// (connect.ts moves it out of the URL at once), so a copied address or a new tab arrives without
// it. The page says what happened and how to open the app, with the app's own header and styles.

export function NoTokenPage({ message }: { message: string }) {
  return (
    <>
      <header className="app-header">
        <h1>Sandbox Packs</h1>
      </header>
      <main>
        <section className="panel no-token" aria-labelledby="no-token-h">
          <h2 id="no-token-h">Open Sandbox Packs from the address it printed</h2>
          <p role="alert">{message}</p>
          <p>
            When the Sandbox Packs server starts, its terminal prints a line beginning with <strong>Open</strong>, followed by an address that ends in{' '}
            <code>#token=</code> and a long code. Open that whole address in this browser. The code is this session&apos;s access key: the page removes it from
            the address bar as soon as it has read it, so it is not bookmarked or shared, which is why an address copied from the address bar, or a new tab,
            arrives without it.
          </p>
          <p className="muted">
            Already-open tabs of this session keep working. If the server was restarted, it printed a new address; the old one no longer works.
          </p>
        </section>
      </main>
    </>
  );
}
