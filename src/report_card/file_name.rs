//! A card's file name, from the card's own data:
//! `report-<screen>-<yyyymmdd-hhmm>.json` (and `.html`).
//!
//! Every card used to be `report.json`, so a phone's downloads held
//! `report.json`, `report (1).json`, … and a folder of cards from several
//! screens could not be told apart without opening them. The name now says
//! which screen and when:
//!
//! ```text
//! report-chrome-156-on-android-15-60hz-20261127-1942.json   a page's card (browser and device)
//! report-llvmpipe-on-linux-144hz-20261127-1950.json         a native card without --name (adapter and OS)
//! report-desk-60hz-20261127-2003.html                       measure --name desk, its page
//! ```
//!
//! - `<screen>`: the machine in words ([`Machine::in_words`]: the name given,
//!   else the browser and device, else the adapter and OS) and the first
//!   monitor's refresh (`60hz`, `59-94hz`), as a filesystem-safe slug
//!   ([`slug`]: lower-case ASCII letters and digits joined by `-`, at most
//!   [`MAX_SCREEN_LEN`] characters).
//! - `<yyyymmdd-hhmm>`: the card's `created` timestamp (UTC), left out when
//!   the card has none.
//!
//! The tour writes its files under these names (natively into `--out`, on
//! the page as downloads), `compare DIR` reads every [`is_card_file_name`]
//! in a folder, and the gallery of `serve` files cards by them.
//!
//! [`Machine::in_words`]: super::schema::Machine::in_words

use super::schema::ReportCard;

/// What every card's file name starts with.
pub const PREFIX: &str = "report";

/// The longest `<screen>` part, in characters: a user agent in words and a
/// refresh fit (`chrome-headless-156-on-linux-60hz` is 33); a long `--name`
/// is cut at a word, so that names stay readable in a phone's downloads list.
pub const MAX_SCREEN_LEN: usize = 48;

/// `report-<screen>-<yyyymmdd-hhmm>`: the stem of every file of `card`.
pub fn card_file_stem(card: &ReportCard) -> String {
    let mut stem = format!("{PREFIX}-{}", screen_slug(card));
    if let Some(time) = card.created.as_deref().and_then(minute_stamp) {
        stem.push('-');
        stem.push_str(&time);
    }
    stem
}

/// `report-<screen>-<yyyymmdd-hhmm>.<extension>` (`json`, `html`).
pub fn card_file_name(card: &ReportCard, extension: &str) -> String {
    format!("{}.{extension}", card_file_stem(card))
}

/// Whether `name` is a card's JSON file: `report.json` (the name before
/// cards were named for their screen) or `report-….json`.
pub fn is_card_file_name(name: &str) -> bool {
    name.strip_suffix(".json")
        .is_some_and(|stem| stem == PREFIX || stem.strip_prefix(PREFIX).is_some_and(|rest| rest.starts_with('-')))
}

/// The card files in `dir` ([`is_card_file_name`]), in name order: what
/// `compare DIR` reads, and how a test finds the card a tour wrote.
///
/// # Errors
/// The folder cannot be listed.
pub fn cards_in(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && path.file_name().is_some_and(|n| is_card_file_name(&n.to_string_lossy())) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The `<screen>` part: the machine in words and the first monitor's refresh, as a slug.
fn screen_slug(card: &ReportCard) -> String {
    let mut words = card.machine.in_words();
    if let Some(hz) = card.monitors.first().and_then(super::schema::MonitorCard::refresh_hz) {
        words.push(' ');
        words.push_str(&crate::report::trim_number(hz, 2));
        words.push_str("hz");
    }
    let slug = slug(&words, MAX_SCREEN_LEN);
    if slug.is_empty() { "screen".to_owned() } else { slug }
}

/// `text` as lower-case ASCII letters and digits, every other run of
/// characters one `-`, none at either end, cut at a `-` to at most `max`
/// characters (or at `max` when one word is longer).
pub fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.len() <= max {
        return out.to_owned();
    }
    // ASCII only, so byte and character positions agree.
    let cut = &out[..max];
    match cut.rfind('-') {
        Some(at) if at > 0 && out.as_bytes()[max] != b'-' => cut[..at].to_owned(),
        _ => cut.trim_end_matches('-').to_owned(),
    }
}

/// `20261127-1942` from an RFC 3339 timestamp (`2026-11-27T19:42:13Z`);
/// `None` for anything else.
fn minute_stamp(created: &str) -> Option<String> {
    let b = created.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        let part = created.get(range)?;
        part.bytes().all(|c| c.is_ascii_digit()).then_some(part)
    };
    let shape = b.len() >= 16 && b[4] == b'-' && b[7] == b'-' && matches!(b[10], b'T' | b't' | b' ') && b[13] == b':';
    if !shape {
        return None;
    }
    Some(format!("{}{}{}-{}{}", digits(0..4)?, digits(5..7)?, digits(8..10)?, digits(11..13)?, digits(14..16)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report_card::{Machine, MonitorCard};

    fn card(machine: Machine, refresh_hz: Option<f64>, created: Option<&str>) -> ReportCard {
        let monitor = MonitorCard { index: 1, reported_refresh_hz: refresh_hz, ..MonitorCard::default() };
        ReportCard { created: created.map(str::to_owned), monitors: vec![monitor], ..ReportCard::new(machine) }
    }

    fn native(name: Option<&str>, adapter: Option<&str>) -> Machine {
        Machine {
            name: name.map(str::to_owned),
            os: "linux x86_64".to_owned(),
            adapter: adapter.map(str::to_owned),
            ..Machine::default()
        }
    }

    const PHONE: &str = "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                         Chrome/156.0.0.0 Mobile Safari/537.36";

    #[test]
    fn a_page_card_is_named_for_its_browser_device_refresh_and_minute() {
        let phone = Machine { browser: Some(PHONE.to_owned()), os: "web wasm32".to_owned(), ..Machine::default() };
        let card = card(phone, Some(60.0), Some("2026-11-27T19:42:13Z"));
        assert_eq!(card_file_name(&card, "json"), "report-chrome-156-on-android-15-60hz-20261127-1942.json");
        assert_eq!(card_file_name(&card, "html"), "report-chrome-156-on-android-15-60hz-20261127-1942.html");
    }

    #[test]
    fn a_native_card_without_a_name_is_named_for_its_adapter_and_system() {
        let card =
            card(native(None, Some("llvmpipe (LLVM 15.0.6, 256 bits)")), Some(144.0), Some("2026-11-27T19:50:00Z"));
        assert_eq!(card_file_stem(&card), "report-llvmpipe-on-linux-144hz-20261127-1950");
    }

    #[test]
    fn a_given_name_wins_and_an_odd_refresh_keeps_its_decimals() {
        let card = card(native(Some("Desk / Ünï 2"), Some("x")), Some(60_000.0 / 1001.0), Some("2026-01-02T03:04:05Z"));
        assert_eq!(card_file_stem(&card), "report-desk-n-2-59-94hz-20260102-0304", "non-ASCII letters are dropped");
    }

    #[test]
    fn a_card_without_time_refresh_or_words_still_gets_a_name() {
        let card = card(native(Some(" // "), None), None, None);
        assert_eq!(card_file_name(&card, "json"), "report-linux.json", "a blank name falls back to the machine");
        let bare = ReportCard::new(Machine::default());
        assert_eq!(
            card_file_name(&bare, "json"),
            "report-an-unknown-system.json",
            "nothing known: words, never an empty part"
        );
        let odd = card_file_stem(&ReportCard { created: Some("yesterday".to_owned()), ..bare });
        assert_eq!(odd, "report-an-unknown-system", "a timestamp that is not RFC 3339 is left out");
    }

    #[test]
    fn a_slug_is_cut_at_a_word_and_never_ends_in_a_dash() {
        assert_eq!(slug("Chrome (headless) 156 on Linux", 48), "chrome-headless-156-on-linux");
        assert_eq!(slug("alpha beta gamma", 12), "alpha-beta", "cut before the word that does not fit");
        assert_eq!(slug("alpha beta gamma", 10), "alpha-beta", "a cut that falls on a dash keeps the word");
        assert_eq!(slug("abcdefghijkl", 5), "abcde", "one long word is cut where it must be");
        assert_eq!(slug("--", 5), "");
    }

    #[test]
    fn card_file_names_are_recognised_old_and_new() {
        for name in ["report.json", "report-desk-60hz-20261127-1942.json"] {
            assert!(is_card_file_name(name), "{name}");
        }
        for name in ["report.html", "reports.json", "screenshot.png", "report-.html", "sim.json"] {
            assert!(!is_card_file_name(name), "{name}");
        }
    }
}
