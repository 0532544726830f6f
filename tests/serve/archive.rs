//! The archive streams: six clients download every card at once, about
//! 200 MB of them, and the server's peak memory (VmHWM, /proc) grows by
//! less than [`GROWTH_BOUND_MB`]; and a temp file an interrupted post left is
//! gone after a restart.

use std::io::Read as _;
use std::time::{Duration, Instant};

use crate::client::{self, Served, measured, scratch};

/// How much the server's peak memory may grow while six archives of 200 MB
/// stream: each stream holds its 4 chunks of 64 KB, the one being filled,
/// gzip's state (under 1 MB) and a file's 8 KB at a time; 6 × ~1.5 MB plus the
/// threads' own arenas and stacks is under 32 MB. Built in memory, as before,
/// each archive held every card and its tar.gz: 6 × 200 MB and more.
const GROWTH_BOUND_MB: u64 = 32;

/// Cards, and their size each: 100 of 2 MB (the 60 Hz fixture padded with spaces, which any JSON
/// reader skips), kept in the directory before the server starts.
const CARDS: usize = 100;
const CARD_BYTES: usize = 2 << 20;

#[test]
fn six_archives_of_200_mb_of_cards_at_once_stream_in_bounded_memory() {
    let cards = scratch("archive");
    std::fs::create_dir_all(&cards).expect("the cards directory");
    let card = measured("60hz.json", "2026-11-27T09:00:00Z");
    let body = card.trim_end().strip_suffix('}').expect("a JSON object");
    let padded = format!("{body}{}}}\n", " ".repeat(CARD_BYTES - card.len()));
    for i in 0..CARDS {
        std::fs::write(cards.join(format!("report-padded-{i:03}.json")), &padded).expect("a card");
    }
    let total_mb = (CARDS * padded.len()) >> 20;
    let served = Served::start(&cards);
    assert!(served.banner.contains(&format!("({CARDS} read back")), "{}", served.banner);
    assert_eq!(served.get("/api/cards").0, 200);
    let before_kb = client::proc_status_kb(served.pid(), "VmHWM");
    let rss_kb = client::proc_status_kb(served.pid(), "VmRSS");
    let started = Instant::now();
    let downloads: Vec<(u16, usize)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let served = &served;
                scope.spawn(move || {
                    let mut stream = served.connect();
                    stream.set_read_timeout(Some(Duration::from_secs(120))).expect("a timeout");
                    std::io::Write::write_all(
                        &mut stream,
                        format!(
                            "GET /cards.tar.gz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
                            served.token
                        )
                        .as_bytes(),
                    )
                    .expect("sent");
                    let mut answer = Vec::new();
                    let _ = stream.read_to_end(&mut answer);
                    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").expect("a head") + 4;
                    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
                    (client::status_and_body(&head).0, dechunk_and_count(&answer[split..]))
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().expect("a download")).collect()
    });
    let took = started.elapsed();
    let after_kb = client::proc_status_kb(served.pid(), "VmHWM");
    let growth_mb = after_kb.saturating_sub(before_kb) / 1024;
    eprintln!(
        "6 archives of {total_mb} MB of cards at once in {took:.1?}: VmRSS before {} MB, VmHWM {} MB before, {} MB after (+{growth_mb} MB)",
        rss_kb / 1024,
        before_kb / 1024,
        after_kb / 1024
    );
    for (status, entries) in &downloads {
        assert_eq!((*status, *entries), (200, CARDS), "every download whole: {downloads:?}");
    }
    assert!(growth_mb < GROWTH_BOUND_MB, "the peak grew by {growth_mb} MB, over {GROWTH_BOUND_MB} MB");
    assert_eq!(served.get("/api/cards").0, 200, "the server answers after");
    drop(served);
    let _ = std::fs::remove_dir_all(&cards);
}

/// The tar.gz in a chunked body: how many card files it holds, each read whole.
fn dechunk_and_count(chunked: &[u8]) -> usize {
    let body = client::dechunk(chunked);
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&body[..]));
    let mut count = 0;
    for entry in archive.entries().expect("a tar.gz") {
        let mut entry = entry.expect("an entry");
        let copied = std::io::copy(&mut entry, &mut std::io::sink()).expect("a whole file");
        assert_eq!(copied, CARD_BYTES as u64, "{:?} whole", entry.path());
        count += 1;
    }
    count
}

#[test]
fn a_temp_file_an_interrupted_post_left_is_gone_after_a_restart_and_a_fresh_one_is_left_alone() {
    let cards = scratch("leftover");
    std::fs::create_dir_all(&cards).expect("the cards directory");
    let old = cards.join(".incoming-0123456789abcdef.tmp");
    let fresh = cards.join(".incoming-fedcba9876543210.tmp");
    std::fs::write(&old, measured("60hz.json", "2026-11-27T09:00:00Z")).expect("a leftover");
    let file = std::fs::File::options().write(true).open(&old).expect("the leftover");
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600)).expect("an hour old");
    drop(file);
    std::fs::write(&fresh, b"{").expect("a post under way (another server's)");
    let served = Served::start(&cards);
    assert!(!old.exists(), "the interrupted post's temp file is gone");
    assert!(fresh.exists(), "a temp file younger than a minute may be another server's post under way: kept");
    assert!(served.banner.contains("(0 read back; 1 temp file(s) of interrupted posts removed)"), "{}", served.banner);
    drop(served);
    let again = Served::start(&cards);
    assert!(again.banner.contains("(0 read back)\n"), "nothing more to remove: {}", again.banner);
    let _ = std::fs::remove_dir_all(&cards);
}
