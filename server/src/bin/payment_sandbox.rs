//! `payment-sandbox`: the payment-gateway sandbox as its own HTTP server (see
//! `server::payments::sandbox` for its API). Settings: `SANDBOX_ADDR` (default 127.0.0.1:3100),
//! `PAYMENT_WEBHOOK_SECRET` (shared with the server; a development default when unset),
//! `SANDBOX_PUBLIC_URL` (how browsers reach it; default `http://<SANDBOX_ADDR>`).

use server::payments::sandbox::{router, SandboxConfig};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    server::init_tracing();
    let addr = std::env::var("SANDBOX_ADDR").unwrap_or_else(|_| "127.0.0.1:3100".into());
    let secret = match std::env::var("PAYMENT_WEBHOOK_SECRET") {
        Ok(s) if !s.is_empty() => s,
        _ => {
            tracing::warn!(
                "PAYMENT_WEBHOOK_SECRET unset: signing callbacks with the development secret"
            );
            server::payments::signature::DEVELOPMENT_SECRET.into()
        }
    };
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|e| anyhow::anyhow!("failed to listen on {addr}: {e}"))?;
    let public_url = std::env::var("SANDBOX_PUBLIC_URL")
        .unwrap_or_else(|_| format!("http://{}", listener.local_addr().expect("bound")));
    tracing::info!(%public_url, "payment sandbox listening");
    let app = router(SandboxConfig {
        webhook_secret: secret.into_bytes(),
        public_url,
    });
    axum::serve(listener, app).await?;
    Ok(())
}
