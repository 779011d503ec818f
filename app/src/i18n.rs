//! Korean and English. Translations live in `app/locales/customer/app.yml` (the customer's pages
//! and what both bundles share) and `app/locales/staff/staff.yml` (the staff's pages, never in
//! the customer's bundle), and are compiled in by
//! `rust-i18n`; the current language is a signal in context, chosen on the server from the
//! `lang` cookie or else `Accept-Language`, written into `<html lang>`, and read back from there
//! when the browser hydrates, so both sides render the same text. The switch sets the cookie.

use leptos::prelude::*;

pub const LANG_COOKIE: &str = "lang";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Ko,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Ko => "ko",
        }
    }

    pub fn parse(tag: &str) -> Option<Self> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Self::En),
            "ko" => Some(Self::Ko),
            _ => None,
        }
    }

    pub fn other(self) -> Self {
        match self {
            Self::En => Self::Ko,
            Self::Ko => Self::En,
        }
    }

    /// The supported language the `Accept-Language` header prefers most, if any.
    pub fn from_accept_language(header: &str) -> Option<Self> {
        let mut best: Option<(f32, Self)> = None;
        for part in header.split(',') {
            let mut pieces = part.split(';');
            let Some(lang) = pieces.next().and_then(Self::parse) else {
                continue;
            };
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q="))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            if q > 0.0 && best.is_none_or(|(bq, _)| q > bq) {
                best = Some((q, lang));
            }
        }
        best.map(|(_, l)| l)
    }

    /// The language named by a `Cookie` header's `lang` cookie.
    pub fn from_cookie_header(header: &str) -> Option<Self> {
        header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(name, _)| *name == LANG_COOKIE)
            .and_then(|(_, value)| Self::parse(value))
    }
}

/// Looks `key` up in `lang` (rust-i18n's compiled-in tables) and fills its `%{name}` arguments.
/// One function for every call site: expanding rust-i18n's `t!` at each of them made the
/// browser bundle noticeably larger.
pub fn translate(lang: Lang, key: &str, args: &[(&str, String)]) -> String {
    let template = crate::_rust_i18n_translate(lang.code(), key);
    // One pass over the template: a value that itself holds `%{…}` (a name someone typed) is
    // never filled in turn.
    let mut text = String::with_capacity(template.len());
    let mut rest: &str = &template;
    while let Some(at) = rest.find("%{") {
        text.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match args.iter().find(|(n, _)| *n == name) {
                    Some((_, value)) => text.push_str(value),
                    None => text.push_str(&rest[at..at + 2 + end + 1]),
                }
                rest = &after[end + 1..];
            }
            None => {
                text.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    text.push_str(rest);
    match lang {
        // A value's particle (`%{amount}을(를)`) is chosen once the value is known.
        Lang::Ko => crate::particles::resolve(&text),
        Lang::En => text,
    }
}

/// Translates `key` into `lang`, with `%{name}` arguments: `tr!(lang, "notice.limit", max = 8)`.
#[macro_export]
macro_rules! tr {
    ($lang:expr, $key:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::i18n::translate($lang, $key, &[$((stringify!($name), ($value).to_string())),*])
    };
}

/// The language to render this request in.
#[cfg(feature = "ssr")]
pub fn initial_lang() -> Lang {
    let Some(parts) = use_context::<http::request::Parts>() else {
        return Lang::default();
    };
    let header = |name: http::header::HeaderName| {
        parts
            .headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(";")
    };
    Lang::from_cookie_header(&header(http::header::COOKIE))
        .or_else(|| Lang::from_accept_language(&header(http::header::ACCEPT_LANGUAGE)))
        .unwrap_or_default()
}

/// The language the server rendered this page in (`<html lang>`).
#[cfg(not(feature = "ssr"))]
pub fn initial_lang() -> Lang {
    document()
        .document_element()
        .and_then(|html| html.get_attribute("lang"))
        .and_then(|l| Lang::parse(&l))
        .unwrap_or_default()
}

/// Puts the language signal into context (once per page, in the frame around it).
pub fn provide_lang() -> RwSignal<Lang> {
    let lang = RwSignal::new(initial_lang());
    provide_context(lang);
    lang
}

pub fn use_lang() -> RwSignal<Lang> {
    use_context::<RwSignal<Lang>>().unwrap_or_else(|| RwSignal::new(Lang::default()))
}

/// Switches the language in the browser and remembers it in a cookie for a year.
pub fn switch_lang(lang: RwSignal<Lang>, to: Lang) {
    lang.set(to);
    #[cfg(not(feature = "ssr"))]
    {
        use leptos::wasm_bindgen::JsCast;
        let doc = document();
        if let Some(html) = doc.document_element() {
            let _ = html.set_attribute("lang", to.code());
        }
        if let Ok(html_doc) = doc.dyn_into::<web_sys::HtmlDocument>() {
            let _ = html_doc.set_cookie(&format!(
                "{LANG_COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax",
                to.code()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_most_preferred_supported_language() {
        assert_eq!(
            Lang::from_accept_language("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7"),
            Some(Lang::Ko)
        );
        assert_eq!(
            Lang::from_accept_language("fr-FR,fr;q=0.9,en;q=0.8,ko;q=0.5"),
            Some(Lang::En)
        );
        assert_eq!(
            Lang::from_accept_language("en;q=0.3, ko;q=0.6"),
            Some(Lang::Ko)
        );
        assert_eq!(Lang::from_accept_language("fr, de"), None);
        assert_eq!(Lang::from_accept_language(""), None);
    }

    #[test]
    fn arguments_are_filled_once_even_when_a_value_looks_like_one() {
        let said = translate(
            Lang::En,
            "invalid.no_member",
            &[("name", "%{name} and %{max}".to_string())],
        );
        assert_eq!(said, "No staff member %{name} and %{max}.");
        assert_eq!(
            translate(Lang::En, "notice.limit", &[("max", "8".into())]),
            tr!(Lang::En, "notice.limit", max = 8)
        );
    }

    #[test]
    fn the_lang_cookie_wins_and_is_read_among_others() {
        assert_eq!(
            Lang::from_cookie_header("seats_session=abc; lang=ko"),
            Some(Lang::Ko)
        );
        assert_eq!(Lang::from_cookie_header("lang=xx"), None);
    }

    #[test]
    fn every_key_has_both_languages() {
        for lang in [Lang::En, Lang::Ko] {
            for text in [
                tr!(lang, "select.hold"),
                tr!(lang, "notice.limit", max = 8),
                tr!(
                    lang,
                    "seat.label",
                    row = "F",
                    number = 5,
                    category = "x",
                    price = "y",
                    status = "z"
                ),
                tr!(lang, "map.cancelled"),
                tr!(lang, "showtimes.cancelled"),
                tr!(lang, "booking.cancelled_refunded"),
                tr!(lang, "booking.cancelled_refunding"),
                tr!(lang, "booking.cancelled"),
                tr!(lang, "map.sales_closed"),
                tr!(lang, "map.sales_not_open", when = "x"),
                tr!(lang, "showtimes.opens", when = "x"),
                tr!(lang, "showtimes.closed"),
            ] {
                assert!(
                    !text.contains('.') || text.contains(' '),
                    "{lang:?}: untranslated key {text:?}"
                );
                assert!(
                    !text.contains("%{"),
                    "{lang:?}: unfilled argument in {text:?}"
                );
            }
        }
        assert_eq!(tr!(Lang::Ko, "select.hold"), "좌석 선택 완료");
        assert_eq!(
            tr!(
                Lang::En,
                "seat.label",
                row = "F",
                number = 5,
                category = "standard",
                price = "12,000 won",
                status = "available"
            ),
            "Row F, seat 5, standard, 12,000 won, available"
        );
    }

    /// The Korean texts say what Korean cinema apps say: choosing seats is 선택 (never the
    /// trade's word 선점), and a companion seat has one name, 동반자석, in the legend, the hints
    /// and the rules alike.
    #[test]
    fn the_korean_texts_use_one_plain_word_for_each_thing() {
        let locale = [CUSTOMER_LOCALE, STAFF_LOCALE].concat();
        let korean: Vec<&str> = locale
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("ko: "))
            .collect();
        assert!(korean.len() > 300, "the Korean lines are read");
        for (word, instead) in [("선점", "선택"), ("동반석", "동반자석")] {
            let found: Vec<&&str> = korean.iter().filter(|l| l.contains(word)).collect();
            assert!(found.is_empty(), "{word} (say {instead}) in {found:?}");
        }
        assert!(korean.iter().any(|l| l.contains("동반자석")));
        // "판매 완료" named the sold seat, the kiosk's sell button and its receipt: three words now.
        let three = [
            tr!(Lang::Ko, "status.booked"),
            tr!(Lang::Ko, "kiosk.complete_sale"),
            tr!(Lang::Ko, "kiosk.sold"),
        ];
        assert!(
            three[0] != three[1] && three[1] != three[2] && three[0] != three[2],
            "{three:?}"
        );
    }

    const CUSTOMER_LOCALE: &str = include_str!("../locales/customer/app.yml");
    const STAFF_LOCALE: &str = include_str!("../locales/staff/staff.yml");

    /// A locale file's keys, each with its English and Korean text, in file order.
    fn locale_entries(locale: &str) -> Vec<(String, String, String)> {
        let mut entries = Vec::new();
        let mut lines = locale.lines().peekable();
        while let Some(line) = lines.next() {
            let Some(key) = line
                .strip_suffix(':')
                .filter(|k| !k.starts_with(' ') && !k.starts_with('#'))
            else {
                continue;
            };
            let mut text = |lang: &str| {
                lines
                    .next_if(|l| l.trim_start().starts_with(&format!("{lang}:")))
                    .map(|l| l.trim_start()[lang.len() + 1..].trim().to_string())
                    .unwrap_or_default()
            };
            let (en, ko) = (text("en"), text("ko"));
            entries.push((key.to_string(), en, ko));
        }
        entries
    }

    /// `%{name}` arguments of a text, sorted.
    fn arguments(text: &str) -> Vec<String> {
        let mut found: Vec<String> = text
            .split("%{")
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
            .collect();
        found.sort();
        found.dedup();
        found
    }

    /// Whether a source file is shown on staff pages only (its keys may be the staff's, which the
    /// customer's bundle does not have): the staff's pages, the checks whose refusals only staff
    /// meet, the console's server functions, the server but for its holds.
    fn staff_only(path: &std::path::Path) -> bool {
        let path = path.to_string_lossy().replace('\\', "/");
        ["pages/staff/", "domain/hall_plan/", "serverfns/console/"]
            .iter()
            .any(|part| path.contains(part))
            || [
                "domain/showtime.rs",
                "domain/waiting_room.rs",
                "domain/text.rs",
                "i18n.rs",
                "error_text.rs",
            ]
            .iter()
            .any(|end| path.ends_with(end))
            || (path.contains("/server/src/") && !path.contains("/engine/holds"))
    }

    /// Every key of the locale files has an English and a Korean text with the same arguments,
    /// no key is there twice, and every key the code names (a string literal of one of the
    /// locale's key families, such as `"kiosk.sell"` or `"editor.problem.no_seats"`, in `app` or
    /// `server`) is in the files — and in the customer's file when the code can show it on a
    /// customer's page: rust-i18n would otherwise show the key itself, or the English text on a
    /// Korean page, without a word.
    #[test]
    fn the_locale_is_complete_for_every_key_the_code_names() {
        let customer: std::collections::HashSet<String> = locale_entries(CUSTOMER_LOCALE)
            .into_iter()
            .map(|(k, _, _)| k)
            .collect();
        let entries = [
            locale_entries(CUSTOMER_LOCALE),
            locale_entries(STAFF_LOCALE),
        ]
        .concat();
        assert!(
            customer.len() > 100,
            "{} customer keys read",
            customer.len()
        );
        assert!(entries.len() > 400, "{} keys read", entries.len());
        let mut seen = std::collections::HashSet::new();
        for (key, en, ko) in &entries {
            assert!(seen.insert(key.as_str()), "{key} is in the locale twice");
            assert!(en.len() > 2 && ko.len() > 2, "{key}: en {en:?}, ko {ko:?}");
            assert_eq!(arguments(en), arguments(ko), "{key}: arguments differ");
        }
        let families: std::collections::HashSet<&str> = entries
            .iter()
            .filter_map(|(k, _, _)| k.split('.').next())
            .collect();
        let app = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = vec![app.join("src"), app.join("../server/src")];
        let mut missing = Vec::new();
        let mut named = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            // (The server's own tests name hosts such as `kiosk.example.com`, not texts.)
            let server_test =
                path.ends_with("tests.rs") && path.to_string_lossy().contains("server");
            if path.extension().is_none_or(|e| e != "rs") || server_test {
                continue;
            }
            let code = std::fs::read_to_string(&path).unwrap();
            for literal in code.split('"').skip(1).step_by(2) {
                let Some((family, rest)) = literal.split_once('.') else {
                    continue;
                };
                let key_like = !rest.is_empty()
                    && families.contains(family)
                    && literal
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
                if key_like {
                    named += 1;
                    if !seen.contains(literal) {
                        missing.push(format!("{literal} ({})", path.display()));
                    } else if !staff_only(&path) && !customer.contains(literal) {
                        missing.push(format!(
                            "{literal} ({}): not in the customer's file",
                            path.display()
                        ));
                    }
                }
            }
        }
        assert!(named > 400, "{named} keys named in the code");
        assert!(missing.is_empty(), "not in the locale: {missing:#?}");
    }
}
