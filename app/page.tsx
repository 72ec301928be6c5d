export default function Home() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", padding: "2rem", maxWidth: 640 }}>
      <h1>Faultline</h1>
      <p>
        Point any Sentry SDK at the DSN printed when the server started. Issues are readable through
        the Sentry-compatible API under <code>/api/0/</code>.
      </p>
    </main>
  );
}
