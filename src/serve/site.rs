//! The page's files (`cargo xtask web`'s output), read once at start and
//! kept in memory with a gzip copy and an ETag each.
//!
//! The names are not content-hashed (`timestep_lab_web_bg.wasm` whatever
//! its build), so a browser may keep a file but must ask whether it changed
//! (`Cache-Control: no-cache` with the ETag: a 304 of a few bytes when not),
//! and a rebuilt site reaches every screen on its next load.

use std::hash::{Hash as _, Hasher as _};
use std::io::Write as _;
use std::path::Path;

use bytes::Bytes;

/// Largest file of the site read: the wasm is 6.5 MB; ten times that is a wrong directory.
const MAX_SITE_FILE: u64 = 64 << 20;

/// One file of the site.
#[derive(Debug)]
pub(crate) struct SiteFile {
    /// Its name in the site's directory, which is its path on the server.
    pub(crate) name: String,
    /// Its MIME type by extension (`application/wasm` for the wasm, which
    /// `WebAssembly.instantiateStreaming` needs).
    pub(crate) content_type: &'static str,
    /// The bytes as built.
    pub(crate) bytes: Bytes,
    /// The same, gzipped, when that is smaller.
    pub(crate) gzip: Option<Bytes>,
    /// `"<length>-<hash>"`, quoted as HTTP wants it.
    pub(crate) etag: String,
}

/// The site: every file at the top of its directory.
#[derive(Debug, Default)]
pub(crate) struct Site {
    files: Vec<SiteFile>,
}

impl Site {
    /// Reads every file at the top of `dir` (the site has no subdirectories).
    ///
    /// # Errors
    /// One line when the directory has no `index.html` or a file cannot be read.
    pub(crate) fn load(dir: &Path) -> Result<Site, String> {
        if !dir.join("index.html").is_file() {
            return Err(format!(
                "no page in {}: build it with `cargo xtask web --out {}`",
                dir.display(),
                dir.display()
            ));
        }
        let listing = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let mut files = Vec::new();
        for entry in listing.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            if !entry.file_type().is_ok_and(|t| t.is_file()) || name.starts_with('.') {
                continue;
            }
            let bytes =
                crate::platform::read_limited::read_limited(&entry.path(), MAX_SITE_FILE).map_err(|e| e.to_string())?;
            files.push(SiteFile::new(name, bytes));
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Site { files })
    }

    /// The file named `name` (a request's path without its `/`).
    pub(crate) fn get(&self, name: &str) -> Option<&SiteFile> {
        self.files.iter().find(|f| f.name == name)
    }
}

impl SiteFile {
    /// `bytes` as the file `name`, with its type, gzip copy and ETag.
    pub(crate) fn new(name: String, bytes: Vec<u8>) -> SiteFile {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        let etag = format!("\"{}-{:016x}\"", bytes.len(), hasher.finish());
        let gzip = gzip(&bytes).filter(|g| g.len() < bytes.len()).map(Bytes::from);
        SiteFile { content_type: content_type(&name), name, bytes: Bytes::from(bytes), gzip, etag }
    }
}

/// `bytes` gzipped at the best level (once, at start).
pub(crate) fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

/// The MIME type of a site file by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gets_its_type_a_smaller_gzip_copy_and_an_etag_of_its_content() {
        let wasm = SiteFile::new("app_bg.wasm".to_owned(), vec![0; 10_000]);
        assert_eq!(wasm.content_type, "application/wasm", "instantiateStreaming needs the wasm type");
        let gzip = wasm.gzip.as_ref().expect("zeros compress");
        assert!(gzip.len() < 100, "10 000 zeros gzip to {} bytes", gzip.len());
        let mut decoded = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzip[..]), &mut decoded).expect("gunzips");
        assert_eq!(decoded, vec![0; 10_000], "the gzip copy is the same file");
        let same = SiteFile::new("other.wasm".to_owned(), vec![0; 10_000]);
        let changed = SiteFile::new("app_bg.wasm".to_owned(), vec![1; 10_000]);
        assert_eq!(wasm.etag, same.etag, "the ETag follows the content");
        assert_ne!(wasm.etag, changed.etag, "a rebuilt file gets a new ETag");
        assert!(SiteFile::new("a.js".to_owned(), b"x".to_vec()).gzip.is_none(), "no gzip copy larger than the file");
    }
}
