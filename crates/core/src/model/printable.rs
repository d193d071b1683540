//! Which characters a merchant's user-facing ids may hold: what renders as itself in any
//! dashboard. Refused: control characters (Unicode category Cc), format characters (Cf: bidi
//! overrides and isolates, zero-width spaces and joiners, the byte-order mark, invisible
//! operators, tag characters), line and paragraph separators (Zl, Zp), surrogates (Cs: a
//! Rust `char` never is one, and percent-decoding refuses invalid UTF-8) and the 66
//! noncharacters (U+FDD0..U+FDEF and the last two code points of every plane).
//!
//! Why a table here rather than a Unicode library: the category table of a general-purpose
//! crate (`unicode-properties`) adds tens of kilobytes to the browser package, which reads
//! userIds too and has a size budget; Cf is 21 ranges. The test below checks this table
//! against `unicode-properties` over every code point, so it cannot drift from Unicode's.

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

/// Whether `c` is a format character (Cf).
pub fn is_format(c: char) -> bool {
    let c = u32::from(c);
    FORMAT.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c))
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

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

    #[test]
    fn the_table_is_unicodes() {
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
        }
        assert_eq!(
            (0..=0x10FFFFu32)
                .filter_map(char::from_u32)
                .filter(|c| is_noncharacter(*c))
                .count(),
            66
        );
    }
}
