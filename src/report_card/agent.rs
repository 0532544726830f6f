//! A browser's user agent in words, for a card's header and a compare
//! column: `Chrome 156 on Android 15`, `Safari 17.4 on iPhone (iOS 17.4)`,
//! `Firefox 128 on Windows`. Only the browser's name and major version and
//! the device's system are kept; the rest of a user agent is history.
//! A native machine reads the same way from its adapter and system:
//! `llvmpipe on Linux`, `NVIDIA GeForce RTX 3060 on Windows`.

/// `agent` in words; the agent itself when nothing in it is recognised.
pub(crate) fn in_words(agent: &str) -> String {
    let browser = browser(agent);
    let system = system(agent);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b,
        (None, Some(s)) => format!("a browser on {s}"),
        (None, None) => agent.trim().to_owned(),
    }
}

/// A native machine in words: the adapter (without the parenthesised
/// details a driver adds) on the system (`linux x86_64` reads `Linux`).
pub(crate) fn machine_in_words(os: &str, adapter: Option<&str>) -> String {
    let word = os.split_whitespace().next().unwrap_or_default();
    let system = match word {
        "linux" => "Linux",
        "windows" => "Windows",
        "macos" => "macOS",
        "android" => "Android",
        "ios" => "iOS",
        "freebsd" => "FreeBSD",
        "web" => "a web page",
        "" => "an unknown system",
        other => other,
    };
    let adapter = adapter.map(|a| a.split(" (").next().unwrap_or(a).trim()).filter(|a| !a.is_empty());
    match adapter {
        Some(a) => format!("{a} on {system}"),
        None => system.to_owned(),
    }
}

/// The version after `token/` in `agent`, to `parts` dot-separated parts.
fn version_after(agent: &str, token: &str, parts: usize) -> Option<String> {
    let start = agent.find(token)? + token.len();
    let version: String = agent[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    let kept: Vec<&str> = version.split('.').filter(|p| !p.is_empty()).take(parts).collect();
    (!kept.is_empty()).then(|| kept.join("."))
}

/// The browser and its version; the order matters, as every engine claims to be the ones before it.
fn browser(agent: &str) -> Option<String> {
    let brands = [
        ("Edg/", "Edge", 1),
        ("OPR/", "Opera", 1),
        ("SamsungBrowser/", "Samsung Internet", 1),
        ("Firefox/", "Firefox", 1),
        ("FxiOS/", "Firefox", 1),
        ("CriOS/", "Chrome", 1),
        ("HeadlessChrome/", "Chrome (headless)", 1),
        ("Chrome/", "Chrome", 1),
    ];
    for (token, name, parts) in brands {
        if let Some(version) = version_after(agent, token, parts) {
            return Some(format!("{name} {version}"));
        }
    }
    if agent.contains("Safari/") {
        return Some(
            version_after(agent, "Version/", 2).map_or_else(|| "Safari".to_owned(), |v| format!("Safari {v}")),
        );
    }
    None
}

/// The device's system: `Android 15`, `iPhone (iOS 17.4)`, `Windows`, `macOS`, `Linux`.
fn system(agent: &str) -> Option<String> {
    if let Some(version) = version_after(agent, "Android ", 2) {
        return Some(format!("Android {version}"));
    }
    for device in ["iPhone", "iPad"] {
        if agent.contains(device) {
            // iOS writes its version with underscores: `iPhone OS 17_4 like Mac OS X`.
            let ios = agent.find(" OS ").and_then(|at| {
                let v: String = agent[at + 4..].chars().take_while(|c| c.is_ascii_digit() || *c == '_').collect();
                (!v.is_empty()).then(|| v.replace('_', "."))
            });
            return Some(ios.map_or_else(|| device.to_owned(), |v| format!("{device} (iOS {v})")));
        }
    }
    [("Windows", "Windows"), ("CrOS", "ChromeOS"), ("Mac OS X", "macOS"), ("Linux", "Linux")]
        .into_iter()
        .find(|(token, _)| agent.contains(token))
        .map(|(_, name)| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_agents_read_as_browser_and_device() {
        let cases = [
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
                "Chrome (headless) 156 on Linux",
            ),
            (
                "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
                "Chrome 156 on Android 15",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
                "Safari 17.4 on iPhone (iOS 17.4)",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
                "Firefox 128 on Windows",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
                "Edge 120 on macOS",
            ),
        ];
        for (agent, words) in cases {
            assert_eq!(in_words(agent), words, "{agent}");
        }
    }

    #[test]
    fn a_native_machine_reads_as_adapter_on_system() {
        assert_eq!(machine_in_words("linux x86_64", Some("llvmpipe (LLVM 15.0.6, 256 bits)")), "llvmpipe on Linux");
        assert_eq!(
            machine_in_words("windows x86_64", Some("NVIDIA GeForce RTX 3060")),
            "NVIDIA GeForce RTX 3060 on Windows"
        );
        assert_eq!(machine_in_words("macos aarch64", Some("  ")), "macOS", "a blank adapter is left out");
        assert_eq!(machine_in_words("", None), "an unknown system");
    }

    #[test]
    fn an_agent_nothing_is_known_of_is_kept_as_it_is() {
        assert_eq!(in_words(" curl/8.5 "), "curl/8.5");
        assert_eq!(in_words("Mozilla/5.0 (X11; Linux x86_64) Unknown/1"), "a browser on Linux");
    }
}
