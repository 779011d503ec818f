//! `server` — serves the product. `server seed` creates the demo data in the configured
//! database (e.g. PostgreSQL) and exits; `server staff …` adds, lists and disables staff
//! accounts there.

use server::clock::Clock;
use server::config::Config;
use server::startup::{leptos_options, open_store, Application};

/// mimalloc instead of glibc's malloc: a hold request allocates and frees many small buffers
/// across two worker threads, where glibc's allocator took a fifth of the server's CPU time
/// (BENCHMARKS.md, flash sale).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    server::init_tracing();
    match std::env::args().nth(1).as_deref() {
        // The store's commands need the store's settings only, not the server's secrets.
        Some("seed") => {
            let store = open_store(&Config::store_from_env()?).await?;
            let created = server::seed::seed_demo(&store, chrono::Utc::now(), 4).await?;
            println!("created {} showtimes", created.len());
            Ok(())
        }
        Some("staff") => {
            let store = open_store(&Config::store_from_env()?).await?;
            let args: Vec<String> = std::env::args().skip(2).collect();
            let out = server::staff::command(&store, &args, &mut server::staff::Stdin).await?;
            println!("{out}");
            Ok(())
        }
        None | Some("serve") => {
            let config = Config::from_env()?;
            let app = Application::build(config, Clock::Database, leptos_options()?).await?;
            tracing::info!("listening on http://{}", app.local_addr());
            app.serve().await
        }
        Some(other) => anyhow::bail!(
            "unknown command {other:?}; use `server`, `server seed` or `server staff`"
        ),
    }
}
