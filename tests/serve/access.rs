//! Who may ask what: the Host a request was sent to (DNS rebinding), and the
//! token for reads of the cards as for writes; the page and its files need none.

use crate::client::{self, Served, measured, scratch};

fn status(answer: &str) -> u16 {
    client::status_and_body(answer).0
}

#[test]
fn a_foreign_host_is_refused_with_how_to_allow_it_and_the_loopback_names_the_printed_address_and_host_are_served() {
    let cards = scratch("hosts");
    // On 127.0.0.5, so that its printed address is not one of the loopback names.
    let served = Served::start_with(&cards, "127.0.0.5:0", &["--host", "Desk.Example", "--host", "[fd00::20]"]);
    assert!(served.banner.contains(&format!("on this machine      http://127.0.0.5:{}/?token=", served.port)));
    let port = served.port;
    let bearer = format!("Authorization: Bearer {}", served.token);
    for host in [
        "127.0.0.5".to_owned(),
        format!("127.0.0.5:{port}"),
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        format!("[::1]:{port}"),
        format!("desk.example:{port}"),
        "desk.example".to_owned(),
        format!("[fd00::20]:{port}"),
    ] {
        let answer = served.raw_with("GET", "/api/cards", &[&format!("Host: {host}"), &bearer], b"");
        assert_eq!(status(&answer), 200, "Host: {host}: {answer}");
        let page = served.raw_with("GET", "/", &[&format!("Host: {host}")], b"");
        assert_eq!(status(&page), 200, "the page, Host: {host}: {page}");
    }
    for (host, name) in [
        ("evil.example".to_owned(), "evil.example"),
        (format!("evil.example:{port}"), "evil.example"),
        (format!("desk.example.evil.example:{port}"), "desk.example.evil.example"),
        ("127.0.0.5:9".to_owned(), "127.0.0.5"),
        (format!("192.168.1.20:{port}"), "192.168.1.20"),
    ] {
        for path in ["/api/cards", "/", "/cards"] {
            let answer = served.raw_with("GET", path, &[&format!("Host: {host}"), &bearer], b"");
            let (code, body) = client::status_and_body(&answer);
            assert_eq!(code, 421, "Host: {host} {path}: {answer}");
            let error: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
            let line = error["error"].as_str().unwrap_or_default();
            assert!(
                line.contains(&format!("does not answer to the name {name}"))
                    && line.contains(&format!("`--host {name}`"))
                    && !line.contains('\n'),
                "one line saying how to allow it: {body}"
            );
        }
    }
    let card = measured("60hz.json", "2026-11-27T09:00:00Z");
    let post = served.raw_with("POST", "/api/cards", &["Host: evil.example", &bearer], card.as_bytes());
    assert_eq!(status(&post), 421, "a write to a foreign name is refused whatever its token: {post}");
    // The absolute form names the host in the request line: it is the one checked.
    let absolute = served.raw_with("GET", "http://evil.example/api/cards", &[&bearer], b"");
    assert_eq!(status(&absolute), 421, "{absolute}");
    // No Host at all (HTTP/1.0).
    let mut stream = served.connect();
    std::io::Write::write_all(&mut stream, b"GET / HTTP/1.0\r\n\r\n").expect("sent");
    let mut answer = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut answer);
    assert!(answer.starts_with("HTTP/1.0 421") || answer.starts_with("HTTP/1.1 421"), "{answer}");
    let _ = std::fs::remove_dir_all(&cards);
}

#[test]
fn reads_of_the_cards_need_the_token_as_writes_do_and_the_page_and_its_files_do_not() {
    let cards = scratch("reads");
    let served = Served::start(&cards);
    let card = measured("60hz.json", "2026-11-27T09:00:00Z");
    let posted = served.raw("POST", "/api/cards", Some(&served.token), card.as_bytes());
    let (code, body) = client::status_and_body(&posted);
    assert_eq!(code, 201, "{body}");
    let id = serde_json::from_str::<serde_json::Value>(&body).expect("JSON")["id"].as_str().expect("an id").to_owned();
    let reads = [
        "/api/cards".to_owned(),
        format!("/api/cards/{id}"),
        "/cards".to_owned(),
        "/cards/compare".to_owned(),
        "/cards.tar.gz".to_owned(),
    ];
    let cookie = format!("Cookie: other=1; timestep-lab-{}={}", served.port, served.token);
    let wrong_cookie = format!("Cookie: timestep-lab-{}=0000", served.port);
    let bearer = format!("Authorization: Bearer {}", served.token);
    for path in &reads {
        let none = served.raw("GET", path, None, b"");
        let (code, body) = client::status_and_body(&none);
        assert_eq!(code, 401, "{path} without the token: {none}");
        assert!(!body.contains("report-") || path == "/cards", "{path}: nothing of the cards: {body}");
        if path == "/cards" {
            assert!(
                body.contains("needs its token") && body.contains("/cards?token="),
                "the gallery says how to get in: {body}"
            );
        } else {
            assert!(body.contains("no token: reading the cards needs the token"), "{path}: {body}");
        }
        assert_eq!(status(&served.raw("GET", path, Some("0000"), b"")), 401, "{path}, a wrong token");
        assert_eq!(status(&served.raw_with("GET", path, &[&wrong_cookie], b"")), 401, "{path}, a wrong cookie");
        assert_eq!(status(&served.raw_with("GET", path, &[&bearer], b"")), 200, "{path} with the token as a bearer");
        assert_eq!(status(&served.raw_with("GET", path, &[&cookie], b"")), 200, "{path} with the cookie");
        let query = if path.contains('?') { format!("{path}&token=") } else { format!("{path}?token=") };
        let answer = served.raw("GET", &format!("{query}{}", served.token), None, b"");
        assert_eq!(status(&answer), 200, "{path} with ?token=");
        let head = answer.split("\r\n\r\n").next().unwrap_or_default().to_ascii_lowercase();
        assert!(
            head.contains(&format!(
                "set-cookie: timestep-lab-{}={}; path=/; httponly; samesite=strict",
                served.port, served.token
            )),
            "an address with the token leaves the cookie for the reads that follow: {head}"
        );
        assert!(head.contains("referrer-policy: no-referrer"), "{head}");
    }
    // The cookie lets a browser read, never write: another site on this machine could send it.
    let edit = served.raw_with("PATCH", &format!("/api/cards/{id}"), &[&cookie], br#"{"name": "x"}"#);
    assert_eq!(status(&edit), 401, "{edit}");
    let post = served.raw_with("POST", "/api/cards", &[&cookie], card.as_bytes());
    assert_eq!(status(&post), 401, "{post}");
    // The page and its files need no token.
    for path in ["/", "/index.html", "/timestep_lab_web_bg.wasm"] {
        let answer = served.raw("GET", path, None, b"");
        assert_eq!(status(&answer), 200, "{path}: {answer}");
    }
    let _ = std::fs::remove_dir_all(&cards);
}
