//! The cards `serve` gathers: one file per card in the cards directory, and
//! what the gallery says of each (a name given there, whether it is left out
//! of the comparison) in `gallery.json` beside them.
//!
//! ```text
//! POST /api/cards ──► parse_source (compare's one load path) ──► a card, or compare's one-line reason
//!                 ──► DIR/.incoming-<random>.tmp, written whole and synced
//!                 ──► hard link to DIR/report-<screen>-<yyyymmdd-hhmm>.json (the one naming of cards:
//!                     report_card::file_name), or -2, -3 … when taken ──► temp removed
//! restart         ──► every *.json of DIR read back (a file that is not a card is logged and skipped)
//! ```
//!
//! A hard link either makes the new name or fails because it is taken, so a
//! card never replaces another, even when two servers share the directory;
//! a card is never half written under its name, as only a whole temp file is
//! linked. Requests name a card by its id (the file's stem, as listed by
//! `GET /api/cards`), looked up among the cards read: no request's text ever
//! becomes part of a path.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::platform::read_limited::{MAX_JSON_BYTES, read_text_limited};
use crate::report_card::ReportCard;
use crate::report_card::comparison::{Source, SourceError, parse_source};

/// The file beside the cards that keeps the gallery's names and left-out marks.
const GALLERY_FILE: &str = "gallery.json";

/// Longest name the gallery gives a card, characters (the page's own name field takes 60).
pub(crate) const MAX_NAME_CHARS: usize = 60;

/// Most cards one directory holds: far more screens than anyone owns, and
/// a bound on the disk a shared network can fill (16 MB each at most).
pub(crate) const MAX_CARDS: usize = 500;

/// One card the server keeps.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The file's stem: how requests name the card.
    pub(crate) id: String,
    /// The card as read.
    pub(crate) card: Box<ReportCard>,
    /// The name the gallery gave it, shown instead of the card's own.
    pub(crate) name: Option<String>,
    /// Left out of the comparison (still listed, still in the archive).
    pub(crate) left_out: bool,
}

impl Entry {
    /// The file name in the cards directory.
    pub(crate) fn file_name(&self) -> String {
        format!("{}.json", self.id)
    }

    /// The card as the comparison shows it: under the gallery's name when it has one.
    pub(crate) fn shown(&self) -> ReportCard {
        let mut card = (*self.card).clone();
        if let Some(name) = &self.name {
            card.machine.name = Some(name.clone());
        }
        card
    }
}

/// Why a card was not taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AddError {
    /// The text is not a card `compare` reads: its reason, word for word.
    #[error("{0}")]
    Source(#[from] SourceError),
    /// Simulator runs, which `compare` reads but the gallery does not gather.
    #[error("simulator runs, not a report card: the gallery gathers measure's report.json")]
    NotACard,
    /// The directory holds [`MAX_CARDS`] already.
    #[error("the gallery holds {MAX_CARDS} cards, the most it keeps: remove some first")]
    Full,
    /// The file could not be written.
    #[error("cannot keep the card: {0}")]
    Io(String),
}

/// Why a gallery change was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum EditError {
    /// No card has that id.
    #[error("no card '{0}' in the gallery (GET /api/cards lists them)")]
    Unknown(String),
    /// A name that is empty, too long or not plain text.
    #[error("a card's name is 1 to {MAX_NAME_CHARS} characters of text, without control characters")]
    BadName,
    /// The directory could not be changed.
    #[error("cannot change the gallery: {0}")]
    Io(String),
}

/// The cards directory and what is in it.
#[derive(Debug)]
pub(crate) struct Store {
    dir: PathBuf,
    entries: Vec<Entry>,
    /// Goes up with every change, so the gallery knows when to redraw.
    version: u64,
    /// Temp files of interrupted posts removed at start.
    removed_temps: usize,
}

/// What `gallery.json` keeps per card file.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Marks {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    left_out: bool,
}

impl Store {
    /// Opens `dir` (made if missing) and reads back every card in it.
    ///
    /// # Errors
    /// One line when the directory cannot be made or listed.
    pub(crate) fn open(dir: &Path) -> Result<Store, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let removed_temps = remove_leftovers(dir);
        let listing = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let marks: std::collections::BTreeMap<String, Marks> =
            read_text_limited(&dir.join(GALLERY_FILE), MAX_JSON_BYTES)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or_default();
        let mut files: Vec<(std::time::SystemTime, String)> = listing
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().to_str()?.to_owned();
                let card = name.ends_with(".json") && name != GALLERY_FILE && !name.starts_with('.');
                let modified = entry.metadata().and_then(|m| m.modified()).ok()?;
                card.then_some((modified, name))
            })
            .collect();
        files.sort();
        let mut entries = Vec::new();
        for (_, name) in files {
            let path = dir.join(&name);
            let card = read_text_limited(&path, MAX_JSON_BYTES)
                .map_err(|e| e.to_string())
                .and_then(|text| read_card(&text).map_err(|e| e.to_string()));
            match card {
                Ok(card) => {
                    let id = name.trim_end_matches(".json").to_owned();
                    let mark = marks.get(&id);
                    entries.push(Entry {
                        id,
                        card,
                        name: mark.and_then(|m| m.name.clone()),
                        left_out: mark.is_some_and(|m| m.left_out),
                    });
                }
                Err(err) => log::warn!("serve: {} is not a card, left alone: {err}", path.display()),
            }
        }
        Ok(Store { dir: dir.to_owned(), entries, version: 1, removed_temps })
    }

    /// The cards, oldest first.
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Goes up with every change.
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// The directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The card named `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Takes `text` as a new card: checked as `compare` checks a file, then
    /// kept under its own name (never over another). Returns its id.
    ///
    /// # Errors
    /// [`AddError`]: the text's fault (compare's reason), a full gallery, or the disk's.
    pub(crate) fn add(&mut self, text: &str) -> Result<String, AddError> {
        let card = read_card(text)?;
        if self.entries.len() >= MAX_CARDS {
            return Err(AddError::Full);
        }
        let wanted = crate::report_card::file_name::card_file_name(&card, "json");
        let file = write_new(&self.dir, &wanted, text.as_bytes()).map_err(AddError::Io)?;
        let id = file.trim_end_matches(".json").to_owned();
        self.entries.push(Entry { id: id.clone(), card, name: None, left_out: false });
        self.version += 1;
        Ok(id)
    }

    /// Names card `id` in the gallery (`None`: its own name again) and/or
    /// leaves it out of the comparison or takes it back in.
    ///
    /// # Errors
    /// [`EditError`]: no such card, a bad name, or `gallery.json` not written.
    pub(crate) fn edit(
        &mut self,
        id: &str,
        name: Option<Option<String>>,
        left_out: Option<bool>,
    ) -> Result<(), EditError> {
        let name = match name {
            Some(Some(text)) => Some(Some(check_name(&text)?)),
            other => other,
        };
        let entry = self.entries.iter_mut().find(|e| e.id == id).ok_or_else(|| EditError::Unknown(id.to_owned()))?;
        if let Some(name) = name {
            entry.name = name;
        }
        if let Some(left_out) = left_out {
            entry.left_out = left_out;
        }
        self.version += 1;
        self.save_marks()
    }

    /// Removes card `id`: its file is deleted.
    ///
    /// # Errors
    /// [`EditError`]: no such card, or the file not removed.
    pub(crate) fn remove(&mut self, id: &str) -> Result<(), EditError> {
        let index = self.entries.iter().position(|e| e.id == id).ok_or_else(|| EditError::Unknown(id.to_owned()))?;
        let path = self.dir.join(self.entries[index].file_name());
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(EditError::Io(format!("cannot remove {}: {e}", path.display()))),
        }
        self.entries.remove(index);
        self.version += 1;
        self.save_marks()
    }

    /// Every card's file, for the archive: (file name, path).
    pub(crate) fn files(&self) -> Vec<(String, PathBuf)> {
        self.entries.iter().map(|e| (e.file_name(), self.dir.join(e.file_name()))).collect()
    }

    /// How many temp files of interrupted posts [`Store::open`] removed.
    pub(crate) fn removed_temps(&self) -> usize {
        self.removed_temps
    }

    fn save_marks(&self) -> Result<(), EditError> {
        let marks: std::collections::BTreeMap<&str, Marks> = self
            .entries
            .iter()
            .filter(|e| e.name.is_some() || e.left_out)
            .map(|e| (e.id.as_str(), Marks { name: e.name.clone(), left_out: e.left_out }))
            .collect();
        let text = serde_json::to_string_pretty(&marks).map_err(|e| EditError::Io(e.to_string()))?;
        replace_whole(&self.dir, GALLERY_FILE, text.as_bytes()).map_err(EditError::Io)
    }
}

/// A temp file this old is no post's under way (a post writes its file
/// within a second of its body; the body has 15 s), even with two servers on
/// one directory: one left by a post the process died in.
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temp files (`.incoming-*.tmp`) that interrupted posts left in
/// `dir`, older than [`LEFTOVER_AGE`]; logs and returns how many.
fn remove_leftovers(dir: &Path) -> usize {
    let Ok(listing) = std::fs::read_dir(dir) else { return 0 };
    let (mut removed, mut bytes) = (0, 0);
    for entry in listing.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(".incoming-") && name.ends_with(".tmp")) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta.modified().ok().and_then(|t| t.elapsed().ok()).is_some_and(|age| age >= LEFTOVER_AGE);
        if !meta.is_file() || !old {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => {
                removed += 1;
                bytes += meta.len();
            }
            Err(err) => log::warn!("serve: cannot remove {}: {err}", entry.path().display()),
        }
    }
    if removed > 0 {
        log::warn!(
            "serve: removed {removed} temp file(s) of interrupted posts from {} ({:.1} MB)",
            dir.display(),
            bytes as f64 / 1e6
        );
    }
    removed
}

/// Writes every file of `files` ((name, path)) as `cards/NAME` into a tar.gz
/// on `out`, one at a time, never a file whole in memory; a file gone or
/// grown past [`MAX_JSON_BYTES`] since start is left out, with a warning.
///
/// # Errors
/// The writer's (the client gone) or the disk's.
pub(crate) fn write_archive(files: &[(String, PathBuf)], out: &mut dyn Write) -> std::io::Result<()> {
    let mut archive = tar::Builder::new(flate2::write::GzEncoder::new(out, flate2::Compression::fast()));
    for (name, path) in files {
        let opened = std::fs::File::open(path).and_then(|file| Ok((file.metadata()?.len(), file)));
        let (len, file) = match opened {
            Ok((len, file)) if len <= MAX_JSON_BYTES => (len, file),
            Ok(_) => {
                log::warn!("serve: {} is over {} MB; left out of the archive", path.display(), MAX_JSON_BYTES >> 20);
                continue;
            }
            Err(err) => {
                log::warn!("serve: cannot read {}: {err}; left out of the archive", path.display());
                continue;
            }
        };
        let mut header = tar::Header::new_gnu();
        header.set_size(len);
        header.set_mode(0o644);
        header.set_mtime(0);
        archive.append_data(&mut header, format!("cards/{name}"), std::io::Read::take(file, len))?;
    }
    archive.into_inner()?.finish()?;
    Ok(())
}

/// `text` as a report card, or why not (compare's words).
fn read_card(text: &str) -> Result<Box<ReportCard>, AddError> {
    match parse_source(text)? {
        Source::Card(card) => Ok(card),
        Source::Runs(_) => Err(AddError::NotACard),
    }
}

/// A gallery name: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no control characters.
fn check_name(text: &str) -> Result<String, EditError> {
    let name = text.trim();
    let fits = (1..=MAX_NAME_CHARS).contains(&name.chars().count());
    if fits && !name.chars().any(char::is_control) { Ok(name.to_owned()) } else { Err(EditError::BadName) }
}

/// A temp file in `dir` holding `bytes`, written whole and synced.
fn write_temp(dir: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    let mut random = [0u8; 8];
    crate::platform::random_bytes(&mut random);
    let name: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let temp = dir.join(format!(".incoming-{name}.tmp"));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(format!("cannot write {}: {e}", temp.display()));
    }
    Ok(temp)
}

/// Writes `bytes` as a new file in `dir` named `wanted` (`report-x.json`),
/// or `report-x-2.json`, `-3` … when the name is taken; returns the name used.
fn write_new(dir: &Path, wanted: &str, bytes: &[u8]) -> Result<String, String> {
    let temp = write_temp(dir, bytes)?;
    let stem = wanted.trim_end_matches(".json");
    let mut result = Err(format!("no free name for {wanted} in {}", dir.display()));
    for n in 1..=MAX_CARDS + 1 {
        let name = if n == 1 { format!("{stem}.json") } else { format!("{stem}-{n}.json") };
        match std::fs::hard_link(&temp, dir.join(&name)) {
            Ok(()) => {
                result = Ok(name);
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                result = Err(format!("cannot write {}: {e}", dir.join(&name).display()));
                break;
            }
        }
    }
    if let Err(e) = std::fs::remove_file(&temp) {
        log::warn!("serve: cannot remove {}: {e}", temp.display());
    }
    result
}

/// Replaces `dir/name` with `bytes` at once (temp file, then rename).
fn replace_whole(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let temp = write_temp(dir, bytes)?;
    std::fs::rename(&temp, dir.join(name)).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("cannot write {}: {e}", dir.join(name).display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("timestep-lab-store-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn fixture() -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card/60hz.json");
        std::fs::read_to_string(path).expect("the 60 Hz fixture")
    }

    #[test]
    fn the_same_card_twice_is_kept_twice_under_two_names_and_read_back_after_a_restart() {
        let dir = scratch("twice");
        let mut store = Store::open(&dir).expect("opens");
        let first = store.add(&fixture()).expect("a card");
        let second = store.add(&fixture()).expect("the same card again");
        assert_eq!(second, format!("{first}-2"), "the second takes a suffix, not the first's file");
        store.edit(&first, Some(Some("desk".to_owned())), Some(true)).expect("named and left out");
        let again = Store::open(&dir).expect("reopens");
        let ids: Vec<&str> = again.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, [first.as_str(), second.as_str()], "both read back, oldest first");
        assert_eq!(again.entries()[0].name.as_deref(), Some("desk"), "the name is kept");
        assert!(again.entries()[0].left_out && !again.entries()[1].left_out, "the left-out mark is kept");
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .expect("lists")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "no temp file is left: {leftovers:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bad_card_is_refused_with_compare_s_reason_and_nothing_is_written() {
        let dir = scratch("bad");
        let mut store = Store::open(&dir).expect("opens");
        let err = store.add("{\"schema\": ").expect_err("truncated");
        assert!(err.to_string().starts_with("not valid JSON: "), "{err}");
        let err = store.add("{}").expect_err("empty object");
        assert_eq!(err.to_string(), SourceError::NotOurs.to_string(), "compare's words");
        assert!(store.add("[{\"strategy\": \"fuzzy\"}]").is_err(), "runs are not a card");
        assert_eq!(std::fs::read_dir(&dir).expect("lists").count(), 0, "no file for a refused card");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn edits_name_only_known_cards_and_take_plain_names() {
        let dir = scratch("edits");
        let mut store = Store::open(&dir).expect("opens");
        let id = store.add(&fixture()).expect("a card");
        assert_eq!(store.edit("../Cargo", None, Some(true)), Err(EditError::Unknown("../Cargo".to_owned())));
        assert_eq!(store.remove("../../etc/passwd"), Err(EditError::Unknown("../../etc/passwd".to_owned())));
        assert_eq!(store.edit(&id, Some(Some("  ".to_owned())), None), Err(EditError::BadName));
        assert_eq!(store.edit(&id, Some(Some("a\nb".to_owned())), None), Err(EditError::BadName));
        store.edit(&id, Some(Some(" Ana's phone ".to_owned())), None).expect("a plain name");
        assert_eq!(store.get(&id).and_then(|e| e.shown().machine.name), Some("Ana's phone".to_owned()));
        store.remove(&id).expect("removed");
        assert!(!dir.join(format!("{id}.json")).exists(), "the file is gone");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
