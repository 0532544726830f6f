//! `timestep-lab serve` as a real process on a free port of 127.0.0.1: cards
//! sent with `measure --send`, kept as files named for their screen and
//! read back after a restart; bad requests refused with a 4xx while the
//! server goes on; 50 cards posted at once; the page gzipped with an ETag;
//! the gallery's edits. Traffic goes to 127.0.0.1 only: the machine's
//! network address is checked to be printed, never connected to. The page
//! itself in Chromium is `tests/web/serve.rs`.

mod access;
mod archive;
#[path = "../support/banner.rs"]
mod banner;
mod client;
mod limits;

use std::path::Path;
use std::time::Duration;

use client::{Served, measured, scratch};

/// The card-file names the server promises: `report-<screen>-<yyyymmdd-hhmm>.json`, a suffix when taken.
fn named_as_promised(file: &str) -> bool {
    regex::Regex::new(r"^report-[A-Za-z0-9._-]+-\d{8}-\d{4}(-\d+)?\.json$").expect("a regex").is_match(file)
}

fn card_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .expect("the cards directory")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("report-"))
        .collect();
    files.sort();
    files
}

#[test]
fn two_native_cards_sent_with_measure_send_are_files_named_for_their_screen_that_survive_a_restart() {
    let cards = scratch("restart");
    let served = Served::start(&cards);
    assert!(served.banner.contains("on this machine      http://127.0.0.1:"), "{}", served.banner);
    // The network address is printed for people (when the machine has one), never connected to.
    let network = served.banner.contains("network address") || served.banner.contains("no network address found");
    assert!(network, "the banner names the network address it does not serve: {}", served.banner);
    let sent_dir = cards.with_extension("sent");
    std::fs::create_dir_all(&sent_dir).expect("a directory for the cards sent");
    let mut sent_texts = Vec::new();
    for (card, created) in [("60hz.json", "2026-11-27T08:30:00Z"), ("144hz.json", "2026-11-27T08:45:10Z")] {
        let path = sent_dir.join(card);
        let text = measured(card, created);
        std::fs::write(&path, &text).expect("the card to send");
        sent_texts.push(text);
        let sent = std::process::Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
            .args(["measure", "--send", &served.url("/"), "--card"])
            .arg(&path)
            .output()
            .expect("measure runs");
        let stdout = String::from_utf8_lossy(&sent.stdout);
        assert!(sent.status.success(), "{card}: {}", String::from_utf8_lossy(&sent.stderr));
        assert!(stdout.starts_with("measure: sent ") && stdout.contains(" to the gallery as report-"), "{stdout}");
    }
    let files = card_files(&cards);
    assert_eq!(
        files,
        ["report-virtual-monitor-144hz-20261127-0845.json", "report-virtual-monitor-60hz-20261127-0830.json"],
        "one file per card, named report-<screen>-<yyyymmdd-hhmm>.json"
    );
    assert!(files.iter().all(|f| named_as_promised(f)), "{files:?}");
    assert_eq!(std::fs::read_to_string(cards.join(&files[1])).ok().as_ref(), Some(&sent_texts[0]), "the card as sent");
    let listed = served.get_json("/api/cards");
    drop(served);
    let again = Served::start(&cards);
    assert!(again.banner.contains("(2 read back)"), "{}", again.banner);
    let relisted = again.get_json("/api/cards");
    assert_eq!(listed["cards"], relisted["cards"], "the same cards after a restart");
    let (status, page) = again.get("/cards/compare");
    let page = String::from_utf8_lossy(&page);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("monitor 1 (60 Hz)") && page.contains("144 Hz") && page.contains("<svg"), "both compared");
    let _ = std::fs::remove_dir_all(&cards);
    let _ = std::fs::remove_dir_all(&sent_dir);
}

#[test]
fn bad_requests_are_refused_with_a_one_line_4xx_and_the_server_answers_after_each() {
    let cards = scratch("bad");
    let served = Served::start(&cards);
    let card = measured("60hz.json", "2026-11-27T09:00:00Z");
    let nan = card.replacen("\"judder_ms\": ", "\"judder_ms\": NaN, \"was\": ", 1);
    let huge = regex::Regex::new(r#""judder_ms": [0-9.e-]+"#)
        .expect("a regex")
        .replace(&card, "\"judder_ms\": 1e308")
        .into_owned();
    assert_ne!(huge, card, "the fixture has a judder to blow up");
    let mut evil = serde_json::from_str::<serde_json::Value>(&card).expect("JSON");
    evil["machine"]["name"] = "../../../tmp/evil/..".into();
    let evil = evil.to_string();
    let token = served.token.clone();
    let twenty_mb = format!("{{\"pad\": \"{}\"}}", "x".repeat(20 << 20));
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("no token", served.raw("POST", "/api/cards", None, card.as_bytes()), 401, "no token: writing needs the token"),
        ("a wrong token", served.raw("POST", "/api/cards", Some("0000"), card.as_bytes()), 401, "the token is wrong"),
        (
            "a wrong token in the query",
            served.raw("POST", "/api/cards?token=0000", None, card.as_bytes()),
            401,
            "the token is wrong",
        ),
        ("20 MB", served.raw("POST", "/api/cards", Some(&token), twenty_mb.as_bytes()), 413, "larger than 16 MB"),
        ("20 MB, chunked", served.chunked("/api/cards", &token, twenty_mb.as_bytes()), 413, "larger than 16 MB"),
        ("garbage", served.raw("POST", "/api/cards", Some(&token), b"\x00\xffgarbage"), 400, "not valid JSON"),
        (
            "truncated JSON",
            served.raw("POST", "/api/cards", Some(&token), &card.as_bytes()[..card.len() / 2]),
            400,
            "not valid JSON: EOF while parsing",
        ),
        ("{}", served.raw("POST", "/api/cards", Some(&token), b"{}"), 400, "neither a report card"),
        ("a card with NaN", served.raw("POST", "/api/cards", Some(&token), nan.as_bytes()), 400, "not valid JSON"),
        ("a card with 1e308", served.raw("POST", "/api/cards", Some(&token), huge.as_bytes()), 400, "judder_ms"),
        (
            "a path as a card id",
            served.raw("GET", "/api/cards/..%2F..%2FCargo.toml", Some(&token), b""),
            404,
            "no card '..%2F..%2FCargo.toml'",
        ),
        ("a path to remove", served.raw("DELETE", "/api/cards/../../Cargo.toml", Some(&token), b""), 404, "no card"),
        ("a path as a file", served.raw("GET", "/../../Cargo.toml", None, b""), 404, "nothing at"),
        (
            "an unknown method",
            served.raw("PUT", "/api/cards", Some(&token), b"{}"),
            405,
            "not something this server does",
        ),
    ];
    let mut table = String::new();
    for (what, answer, status, says) in &cases {
        let (got, body) = client::status_and_body(answer);
        table += &format!("{what:28} -> {got} {body}\n");
        assert_eq!(got, *status, "{what}: {answer}");
        let error: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let line = error["error"].as_str().unwrap_or_default();
        assert!(line.contains(says) && !line.contains('\n'), "{what}: one line saying '{says}': {body}");
        assert_eq!(served.get("/api/cards").0, 200, "{what}: the server answers after it");
    }
    eprintln!("{table}");
    // A card named with a path is kept under a name of the server's, inside the directory.
    let (status, body) = client::status_and_body(&served.raw("POST", "/api/cards", Some(&token), evil.as_bytes()));
    assert_eq!(status, 201, "{body}");
    let files = card_files(&cards);
    assert!(files.len() == 1 && named_as_promised(&files[0]) && !files[0].contains(".."), "{files:?}");
    assert!(!Path::new("/tmp/evil").exists(), "nothing written outside the directory");
    // Slow clients: a byte a second in the body is cut off with a 408, in the headers the connection is closed.
    let slow_body = std::thread::spawn({
        let port = served.port;
        let token = token.clone();
        move || {
            client::slow(
                port,
                &format!(
                    "POST /api/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nContent-Length: 1000\r\n\r\n"
                ),
                40,
            )
        }
    });
    let slow_head = std::thread::spawn({
        let port = served.port;
        move || client::slow(port, "", 40)
    });
    let (answer, took) = slow_body.join().expect("the slow body's thread");
    assert_eq!(client::status_and_body(&answer).0, 408, "a slow body is refused: {answer}");
    assert!(took < Duration::from_secs(30), "within the body's time limit: {took:?}");
    let (answer, took) = slow_head.join().expect("the slow head's thread");
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "a slow head is cut off: {answer}");
    assert!(took < Duration::from_secs(30), "within the header's time limit: {took:?}");
    assert_eq!(served.get("/api/cards").0, 200, "the server answers after the slow clients");
    let _ = std::fs::remove_dir_all(&cards);
}

#[test]
fn fifty_cards_posted_at_once_are_fifty_files_none_lost_or_overwritten() {
    let cards = scratch("fifty");
    let served = Served::start(&cards);
    let texts: Vec<String> = (0..50)
        .map(|i| {
            let mut card: serde_json::Value =
                serde_json::from_str(&measured("60hz.json", "2026-11-27T10:00:00Z")).expect("JSON");
            card["machine"]["name"] = format!("screen {}", i % 5).into();
            serde_json::to_string_pretty(&card).expect("JSON")
        })
        .collect();
    let ids: Vec<String> = std::thread::scope(|scope| {
        let posts: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let served = &served;
                // From five loopback addresses, ten each: one address holds at most 32 connections.
                let from = [127, 0, 0, 10 + u8::try_from(i % 5).expect("small")];
                scope.spawn(move || {
                    let (status, body) = client::status_and_body(&served.raw_from(
                        from,
                        "POST",
                        "/api/cards",
                        Some(&served.token),
                        text.as_bytes(),
                    ));
                    assert_eq!(status, 201, "{body}");
                    serde_json::from_str::<serde_json::Value>(&body).expect("JSON")["id"]
                        .as_str()
                        .expect("an id")
                        .to_owned()
                })
            })
            .collect();
        posts.into_iter().map(|p| p.join().expect("a post")).collect()
    });
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 50, "fifty ids: {ids:?}");
    let files = card_files(&cards);
    assert_eq!(files.len(), 50, "fifty files: {files:?}");
    for (id, text) in ids.iter().zip(&texts) {
        let kept = std::fs::read_to_string(cards.join(format!("{id}.json"))).expect("the card's file");
        assert_eq!(&kept, text, "{id} holds the card posted as it");
    }
    let _ = std::fs::remove_dir_all(&cards);
}

#[test]
fn the_page_comes_gzipped_with_an_etag_and_the_gallery_renames_leaves_out_removes_and_archives() {
    let cards = scratch("page");
    let served = Served::start(&cards);
    let answer = served.raw_with("GET", "/timestep_lab_web_bg.wasm", &["Accept-Encoding: gzip, br"], b"");
    let head = answer.split("\r\n\r\n").next().unwrap_or_default().to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200") && head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("content-type: application/wasm") && head.contains("cache-control: no-cache"), "{head}");
    let etag = head.lines().find_map(|l| l.strip_prefix("etag: ")).expect("an ETag").to_owned();
    let again = served.raw_with("GET", "/timestep_lab_web_bg.wasm", &[&format!("If-None-Match: {etag}")], b"");
    assert!(again.starts_with("HTTP/1.1 304"), "unchanged: {again}");
    let (status, gallery) = served.get("/cards");
    let gallery = String::from_utf8_lossy(&gallery).into_owned();
    assert!(status == 200 && gallery.contains("Every screen's card"), "{gallery}");
    assert!(!gallery.contains(&served.token), "the token is not in the gallery's markup");
    for card in ["60hz.json", "144hz.json"] {
        let text = measured(card, "2026-11-27T11:00:00Z");
        assert_eq!(
            client::status_and_body(&served.raw("POST", "/api/cards", Some(&served.token), text.as_bytes())).0,
            201
        );
    }
    let list = served.get_json("/api/cards");
    let first = list["cards"][0]["id"].as_str().expect("an id").to_owned();
    let edit = |body: &str| {
        client::status_and_body(&served.raw(
            "PATCH",
            &format!("/api/cards/{first}"),
            Some(&served.token),
            body.as_bytes(),
        ))
    };
    assert_eq!(edit(r#"{"name": "desk 60"}"#).0, 200);
    assert_eq!(edit(r#"{"name": "a\nb"}"#).0, 400, "a name is one line of text");
    assert_eq!(served.get_json("/api/cards")["cards"][0]["name"], "desk 60");
    assert_eq!(edit(r#"{"left_out": true}"#).0, 200);
    let page = String::from_utf8_lossy(&served.get("/cards/compare").1).into_owned();
    assert!(!page.contains("desk 60") && page.contains("144 Hz"), "a card left out is not compared");
    let (status, archive) = served.get("/cards.tar.gz");
    assert_eq!(status, 200);
    let mut names = Vec::new();
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&archive[..]));
    for entry in tar.entries().expect("a tar.gz") {
        names.push(entry.expect("an entry").path().expect("a path").display().to_string());
    }
    assert_eq!(names.len(), 2, "every card in the archive: {names:?}");
    let (status, _) =
        client::status_and_body(&served.raw("DELETE", &format!("/api/cards/{first}"), Some(&served.token), b""));
    assert_eq!(status, 200);
    assert_eq!(card_files(&cards).len(), 1, "the removed card's file is gone");
    let _ = std::fs::remove_dir_all(&cards);
}
