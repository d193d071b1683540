//! Which characters user-given text may hold: what renders as itself in any dashboard, log or
//! wallet. Two rules, each in one place:
//!
//! - [`is_printable`], for a merchant's user-facing ids (userIds). Refused: control characters
//!   (Unicode category Cc), format characters (Cf: bidi overrides and isolates, zero-width
//!   spaces and joiners, the byte-order mark, invisible operators, tag characters), line and
//!   paragraph separators (Zl, Zp), surrogates (Cs: a Rust `char` never is one, and
//!   percent-decoding refuses invalid UTF-8) and the 66 noncharacters (U+FDD0..U+FDEF and the
//!   last two code points of every plane).
//! - [`display_text`], for free text shown to people (token, presale and merchant names,
//!   descriptions, links, webhook descriptions: `input::Text`): printable as above, and no
//!   default-ignorable code point either (Unicode's Default_Ignorable_Code_Point: the Hangul
//!   fillers, variation selectors, the combining grapheme joiner, ... all drawn as nothing),
//!   and not blank-looking (only whitespace and blank characters). Two exceptions: text that
//!   may span lines (a description) may hold line feeds (`\n`, or `\r\n`); and one emoji or
//!   text presentation selector (U+FE0F, U+FE0E) may follow a visible character, as phones
//!   write `❤️` (U+2764 U+FE0F). Alone, after a space or after another selector it is refused.
//!
//! Why tables here rather than a Unicode library: the category table of a general-purpose
//! crate (`unicode-properties`) adds tens of kilobytes to the browser package, which reads
//! userIds too and has a size budget; Cf is 21 ranges and the rest of what is invisible 11.
//! The tests below check both tables against Unicode's (`unicode-properties`, ICU's
//! properties) over every code point, so they cannot drift.

/// The format characters (Cf), as of Unicode 16.
const FORMAT: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// The default-ignorable code points that are not format characters (those are in [`FORMAT`]):
/// Unicode's Default_Ignorable_Code_Point, as of Unicode 16.
const IGNORABLE: &[(u32, u32)] = &[
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x2065, 0x2065),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),
];

fn within(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c))
}

/// Whether `c` is a format character (Cf).
pub fn is_format(c: char) -> bool {
    within(FORMAT, c)
}

/// Whether `c` is drawn as nothing: a format character or another default-ignorable one.
pub fn is_invisible(c: char) -> bool {
    is_format(c) || within(IGNORABLE, c)
}

/// Whether `c` is one of Unicode's 66 noncharacters.
pub fn is_noncharacter(c: char) -> bool {
    let c = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&c) || c & 0xFFFE == 0xFFFE
}

/// Whether `c` may stand in a user-facing id: not a control, format, separator (line,
/// paragraph) or noncharacter.
pub fn is_printable(c: char) -> bool {
    !(c.is_control() || is_format(c) || is_noncharacter(c) || c == '\u{2028}' || c == '\u{2029}')
}

/// Characters that draw as empty space without being whitespace.
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{2800}'
}

/// The emoji and text presentation selectors: allowed once, right after a visible character.
fn is_presentation_selector(c: char) -> bool {
    matches!(c, '\u{FE0E}' | '\u{FE0F}')
}

/// Why `text` may not be shown as free text (a name, a description), if it may not:
/// [`is_printable`] characters only, none of them invisible ([`is_invisible`]), and at least one
/// that is not blank. `lines`: the text may span lines (`\n`, `\r\n`). See the module's
/// documentation for the two exceptions. The reason names the first character refused by its
/// code point and position, never by the text itself.
pub fn display_text(text: &str, lines: bool) -> Result<(), String> {
    let mut visible = false;
    let mut prev: Option<char> = None;
    let mut chars = text.chars().enumerate().peekable();
    while let Some((i, c)) = chars.next() {
        let allowed = match c {
            '\n' => lines,
            '\r' => lines && chars.peek().is_some_and(|(_, next)| *next == '\n'),
            c if is_presentation_selector(c) => {
                prev.is_some_and(|p| !is_blank(p) && is_printable(p) && !is_invisible(p))
            }
            c => is_printable(c) && !is_invisible(c),
        };
        if !allowed {
            let what = if lines {
                "a control (other than a line break), format (bidi, zero-width), invisible or noncharacter code point"
            } else {
                "a control (line breaks included), format (bidi, zero-width), invisible or noncharacter code point"
            };
            return Err(format!(
                "must be printable text: U+{:04X} (character {}) is {what}",
                u32::from(c),
                i + 1
            ));
        }
        visible |= !is_blank(c) && !is_presentation_selector(c);
        prev = Some(c);
    }
    if visible {
        Ok(())
    } else {
        Err("must not be blank (only whitespace or invisible characters)".into())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use icu_properties::props::DefaultIgnorableCodePoint;
    use icu_properties::CodePointSetData;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

    #[test]
    fn the_tables_are_unicodes() {
        let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let category = c.general_category();
            assert_eq!(
                is_format(c),
                category == GeneralCategory::Format,
                "U+{:04X}",
                u32::from(c)
            );
            let refused = matches!(
                category,
                GeneralCategory::Control
                    | GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            ) || is_noncharacter(c);
            assert_eq!(is_printable(c), !refused, "U+{:04X}", u32::from(c));
            let invisible = category == GeneralCategory::Format || ignorable.contains(c);
            assert_eq!(is_invisible(c), invisible, "U+{:04X}", u32::from(c));
        }
        assert_eq!(
            (0..=0x10FFFFu32)
                .filter_map(char::from_u32)
                .filter(|c| is_noncharacter(*c))
                .count(),
            66
        );
    }

    #[test]
    fn display_text_is_printable_visible_and_not_blank() {
        for ok in [
            "Moon",
            " Moon ",
            "Crème brûlée ☕",
            "ユーザー",
            "رضا",
            "❤\u{FE0F} Love",
            "1\u{FE0F}\u{20E3}",
            "a\u{0301}",
            "x\u{2800}y",
        ] {
            assert_eq!(display_text(ok, false), Ok(()), "{ok:?}");
            assert_eq!(display_text(ok, true), Ok(()), "{ok:?}");
        }
        for multiline in ["Line one\nline two", "One\r\nTwo\n\nThree"] {
            assert_eq!(display_text(multiline, true), Ok(()), "{multiline:?}");
            assert!(display_text(multiline, false).is_err(), "{multiline:?}");
        }
        let refused = [
            "a\u{0}b",           // NUL
            "\u{1b}[31mred",     // an ANSI escape
            "tab\there",         // a control
            "a\rb",              // a carriage return not before a line feed
            "a\u{85}b",          // C1 control
            "a\u{202e}b",        // bidi override
            "x\u{2066}y",        // bidi isolate
            "ali\u{200b}ce",     // zero-width space
            "a\u{200d}b",        // zero-width joiner
            "\u{feff}alice",     // byte-order mark
            "a\u{2028}b",        // line separator
            "a\u{fdd0}",         // noncharacter
            "a\u{034f}b",        // combining grapheme joiner
            "a\u{3164}b",        // Hangul filler
            "a\u{115f}b",        // Hangul choseong filler
            "a\u{e0100}",        // a variation selector past the BMP
            "a\u{fe00}",         // a variation selector other than the two presentation ones
            "\u{fe0f}a",         // a presentation selector first
            "a \u{fe0f}",        // after a space
            "a\u{fe0f}\u{fe0f}", // twice
            "",
            " ",
            "\u{3000}\u{a0}",
            "\u{2800}",
            " \u{2800} ",
        ];
        for bad in refused {
            assert!(display_text(bad, false).is_err(), "{bad:?}");
            assert!(display_text(bad, true).is_err(), "{bad:?}");
        }
        assert_eq!(
            display_text("ab\u{202e}c", false).unwrap_err(),
            "must be printable text: U+202E (character 3) is a control (line breaks included), format (bidi, zero-width), invisible or noncharacter code point"
        );
        assert_eq!(
            display_text("\n", true).unwrap_err(),
            "must not be blank (only whitespace or invisible characters)"
        );
    }
}
