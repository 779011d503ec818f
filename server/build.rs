// The migrations are compiled into the binary (`sqlx::migrate!`); a changed or added migration
// must rebuild it even when no Rust file changed.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
