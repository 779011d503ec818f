//! Components used on several pages.

mod lang_switch;

pub use lang_switch::LangSwitch;
