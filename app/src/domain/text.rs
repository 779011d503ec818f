//! Names people type (halls, categories, titles, registers, gates, card references, tokens):
//! printable text only. A control character (a NUL byte: PostgreSQL refuses it outright), an
//! invisible one (zero-width spaces and joiners, a byte-order mark) or one that turns the
//! direction of the text around (a right-to-left override can make `evil.exe` read `exe.live`)
//! is refused with a clear 400, the same on both stores.

/// The first character of `text` that a name may not hold, if there is one.
pub fn unprintable(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        c.is_control()
            || matches!(
                c,
                '\u{00AD}'
                    | '\u{034F}'
                    | '\u{061C}'
                    | '\u{115F}'
                    | '\u{1160}'
                    | '\u{17B4}'
                    | '\u{17B5}'
                    | '\u{180B}'..='\u{180F}'
                    | '\u{200B}'..='\u{200F}'
                    | '\u{202A}'..='\u{202E}'
                    | '\u{2060}'..='\u{206F}'
                    | '\u{3164}'
                    | '\u{FE00}'..='\u{FE0F}'
                    | '\u{FEFF}'
                    | '\u{FFA0}'
                    | '\u{FFF0}'..='\u{FFFB}'
                    | '\u{E0000}'..='\u{E007F}'
            )
    })
}

/// Why `text` may not be the name the locale key `what_key` names (1 to `max` characters,
/// trimmed, all printable), if it may not.
pub fn name_problem(what_key: &str, text: &str, max: usize) -> Option<crate::error::Reason> {
    super::NameFault::of(text, max).map(|fault| fault.reason(what_key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_nul_invisible_or_bidi_override_characters_are_refused() {
        for bad in [
            "Hall\u{0}1",
            "Hall\u{202E}1",
            "\u{200B}",
            "VIP\u{FEFF}",
            "a\nb",
            "x\u{2066}y",
        ] {
            assert!(
                name_problem("invalid.what.title", bad, 80).is_some(),
                "{bad:?}"
            );
        }
        assert!(name_problem("invalid.what.title", "", 80).is_some());
        assert!(name_problem("invalid.what.title", &"x".repeat(81), 80).is_some());
    }

    #[test]
    fn ordinary_names_in_any_script_are_kept() {
        for good in [
            "Hall 1",
            "커플석",
            "Salle Étoile",
            "VIP-2 (front)",
            "シネマ",
            "قاعة",
        ] {
            assert_eq!(
                name_problem("invalid.what.title", good, 80),
                None,
                "{good:?}"
            );
        }
        let why = name_problem("invalid.what.title", "Salle\u{202E}", 80).unwrap();
        assert!(why.to_string().contains("U+202E"), "{why}");
        assert!(why.to_string().starts_with("A showtime's title"), "{why}");
        let ko = why.said(crate::i18n::Lang::Ko);
        assert!(ko.starts_with("상영 제목") && ko.contains("U+202E"), "{ko}");
    }
}
