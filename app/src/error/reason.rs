//! Why something was refused: a locale key and its arguments.

use serde::{Deserialize, Serialize};

/// Why something was refused, as the locale says it: a key and its arguments. An argument whose
/// name ends in `_key` is itself a key, said in the same language first (`what_key:
/// "invalid.what.register"` fills `%{what}`); one whose name ends in `_won` is an amount, said
/// as the language writes money (`total_won: "12000"` fills `%{total}` with `₩12,000` or
/// `12,000원`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason {
    pub key: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

impl Reason {
    pub fn new(key: &str, args: &[(&str, String)]) -> Self {
        Self {
            key: key.to_string(),
            args: args
                .iter()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect(),
        }
    }

    /// The reason in `lang`.
    pub fn said(&self, lang: crate::i18n::Lang) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(name, value)| {
                if let Some(name) = name.strip_suffix("_key") {
                    (name, crate::i18n::translate(lang, value, &[]))
                } else if let (Some(name), Ok(amount)) = (
                    name.strip_suffix("_won"),
                    value.parse::<i64>().map(crate::domain::Won::new),
                ) {
                    (name, crate::format::price(lang, amount))
                } else {
                    (name.as_str(), value.clone())
                }
            })
            .collect();
        crate::i18n::translate(lang, &self.key, &args)
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said(crate::i18n::Lang::En))
    }
}

/// Reasons in `lang`, one after another.
pub fn said(reasons: &[Reason], lang: crate::i18n::Lang) -> String {
    reasons
        .iter()
        .map(|r| r.said(lang))
        .collect::<Vec<_>>()
        .join(" ")
}
