//! Korean particles chosen by the word they follow. A Korean text that names a value it does not
//! know in advance writes both forms, `%{amount}을(를)`; [`resolve`] keeps the one the word's
//! last sound takes: `24,000원을`, `G2를`, `G7을`, `example.com으로`.
//!
//! The last sound is read from the last character that is spoken: a Hangul syllable's final
//! consonant, a number as Korean reads it (`7` 칠, `10` 십, `2,000` 이천), a Latin word as Korean
//! says it (`net` 넷, `Peter` 피터) and a letter alone by its name (`M` 엠, `L` 엘, `R` 알). Closing quotes are looked through, and a parenthesised aside is
//! skipped (`김민수(매표원)으로` takes the particle of 김민수).

/// The pairs the texts write, and the form taken after a final consonant, after none, and
/// after ㄹ (where `(으)로` takes `로`). A test checks that the texts write no other.
const PAIRS: [(&str, &str, &str, &str); 4] = [
    ("을(를)", "을", "를", "을"),
    ("이(가)", "이", "가", "이"),
    ("은(는)", "은", "는", "은"),
    ("(으)로", "으로", "로", "로"),
];

/// How a word ends, as far as a particle cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Vowel,
    Rieul,
    Consonant,
}

/// `text` with every written-out pair replaced by the form its word takes. A pair whose word
/// cannot be read (nothing spoken before it) keeps both forms.
pub fn resolve(text: &str) -> String {
    if !text.contains('(') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'scan: while !rest.is_empty() {
        for (pair, consonant, vowel, rieul) in PAIRS {
            if let Some(after) = rest.strip_prefix(pair) {
                match ending(&out) {
                    Some(Ending::Consonant) => out.push_str(consonant),
                    Some(Ending::Vowel) => out.push_str(vowel),
                    Some(Ending::Rieul) => out.push_str(rieul),
                    None => out.push_str(pair),
                }
                rest = after;
                continue 'scan;
            }
        }
        let c = rest.chars().next().expect("rest is not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// How the word just before the end of `before` ends.
fn ending(before: &str) -> Option<Ending> {
    let mut chars = before.chars().rev().peekable();
    // Closing quotes are looked through; an aside in parentheses is skipped whole.
    loop {
        match chars.peek() {
            Some('”' | '’' | '"' | '\'' | '」' | '』') => {
                chars.next();
            }
            Some(')') => {
                let mut depth = 0;
                for c in chars.by_ref() {
                    match c {
                        ')' => depth += 1,
                        '(' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => break,
        }
    }
    let last = *chars.peek()?;
    if last.is_ascii_digit() {
        let digits: String = chars
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect();
        return Some(number_ending(&digits));
    }
    if ('가'..='힣').contains(&last) {
        return Some(match (u32::from(last) - u32::from('가')) % 28 {
            0 => Ending::Vowel,
            8 => Ending::Rieul,
            _ => Ending::Consonant,
        });
    }
    if last.is_ascii_alphabetic() {
        chars.next();
        let before = chars.next().filter(char::is_ascii_alphabetic);
        return Some(
            match (
                before.map(|c| c.to_ascii_lowercase()),
                last.to_ascii_lowercase(),
            ) {
                // A word, as Korean says it: `net` 넷, `book` 북, `shop` 숍, `gmail.com` 컴,
                // `ring` 링, `mail` 메일; `Peter` 피터, `card` 카드 end in a vowel.
                (Some(_), 'm' | 'n' | 'k' | 't' | 'p') | (Some('n'), 'g') => Ending::Consonant,
                (Some(_), 'l') => Ending::Rieul,
                (Some(_), _) => Ending::Vowel,
                // A letter alone, by its name: 엘, 알 end in ㄹ; 엠, 엔 in another consonant.
                (None, 'l' | 'r') => Ending::Rieul,
                (None, 'm' | 'n') => Ending::Consonant,
                (None, _) => Ending::Vowel,
            },
        );
    }
    None
}

/// How a number ends as Korean reads it; `digits` last digit first.
fn number_ending(digits: &str) -> Ending {
    let zeros = digits.chars().take_while(|&c| c == '0').count();
    if zeros == digits.len() {
        return Ending::Consonant; // 영
    }
    match zeros {
        // 십, 백, 천, 만 and 억 all end in a consonant other than ㄹ.
        1.. => Ending::Consonant,
        _ => match digits.chars().next() {
            Some('1' | '7' | '8') => Ending::Rieul, // 일, 칠, 팔
            Some('3' | '6') => Ending::Consonant,   // 삼, 육
            _ => Ending::Vowel,                     // 이, 사, 오, 구
        },
    }
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn a_particle_follows_the_last_sound_of_its_word() {
        for (written, said) in [
            ("24,000원을(를) 환불", "24,000원을 환불"),
            ("결제하신 ₩9,000이(가)", "결제하신 ₩9,000이"),
            ("좌석 G2은(는)", "좌석 G2는"),
            ("좌석 G7은(는)", "좌석 G7은"),
            ("상영 12이(가) 없습니다", "상영 12가 없습니다"),
            ("상영 10이(가) 없습니다", "상영 10이 없습니다"),
            ("상영 3을(를)", "상영 3을"),
            ("김민수이(가)", "김민수가"),
            ("서울(으)로", "서울로"),
            ("부산(으)로", "부산으로"),
            ("학교(으)로", "학교로"),
            ("a@example.com(으)로", "a@example.com으로"),
            ("a@example.org(으)로", "a@example.org로"),
            ("a@example.kr(으)로", "a@example.kr로"),
            ("a@daum.net(으)로", "a@daum.net으로"),
            ("WHEELCHAIR은(는)", "WHEELCHAIR는"),
            ("좌석 AL은(는)", "좌석 AL은"),
            ("등급 R은(는)", "등급 R은"),
            ("등급 M은(는)", "등급 M은"),
            ("등급 A은(는)", "등급 A는"),
            ("“STANDRAD”은(는)", "“STANDRAD”는"),
            ("김민수(매표원)(으)로 로그인", "김민수(매표원)로 로그인"),
            ("박정민(매니저)(으)로 로그인", "박정민(매니저)으로 로그인"),
        ] {
            assert_eq!(resolve(written), said, "{written}");
        }
    }

    /// Every pair a Korean text writes is one `resolve` knows: filled in, none is left.
    #[test]
    fn the_texts_write_only_the_pairs_resolve_knows() {
        let locales = [
            include_str!("../locales/customer/app.yml"),
            include_str!("../locales/staff/staff.yml"),
            include_str!("../locales/server/pages.yml"),
        ];
        let pairs = [
            "를(을)", "가(이)", "는(은)", "과(와)", "와(과)", "을(를)", "이(가)", "은(는)",
            "(으)로",
        ];
        for line in locales.iter().flat_map(|l| l.lines()) {
            let Some(text) = line.trim_start().strip_prefix("ko: ") else {
                continue;
            };
            let mut filled = String::new();
            let mut rest = text;
            while let Some(at) = rest.find("%{") {
                filled.push_str(&rest[..at]);
                filled.push_str("서울");
                rest = rest[at..].find('}').map_or("", |end| &rest[at + end + 1..]);
            }
            filled.push_str(rest);
            let said = resolve(&filled);
            assert!(!pairs.iter().any(|p| said.contains(p)), "{text} → {said}");
        }
    }

    #[test]
    fn a_pair_with_no_word_before_it_and_other_parentheses_stay_as_written() {
        assert_eq!(resolve("을(를) 보세요"), "을(를) 보세요");
        assert_eq!(resolve("좌석(A1–A20)"), "좌석(A1–A20)");
        assert_eq!(resolve("No (parentheses) here"), "No (parentheses) here");
    }
}
