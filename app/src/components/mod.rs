//! Components used on several pages.

mod hydrated;
mod lang_switch;
pub mod proof;

pub use hydrated::HydratedMark;
pub use lang_switch::LangSwitch;
