//! `timestep-lab serve`: its flags, the one line that says how to build the
//! page when it is missing (the product never runs cargo: `cargo xtask web`
//! builds the page), and what it prints at start (the addresses with the
//! token, and a QR code of the one other devices open). The server itself is
//! [`crate::serve`].

use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli;
use crate::error::CliError;
use crate::serve::Gallery;
use crate::serve::api::Access;
use crate::serve::site::Site;
use crate::serve::store::Store;

/// Arguments of `timestep-lab serve`.
///
/// Serves the web page to every screen on the network and gathers their
/// report cards: a page served here sends its card when its tour ends,
/// `measure --send URL` sends a native one, and /cards compares them all.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Where to listen, HOST:PORT. The default listens on every network of this
    /// machine; 127.0.0.1:PORT keeps it on this machine; port 0 takes a free one.
    #[arg(long, value_name = "HOST:PORT", default_value = "0.0.0.0:8000", value_parser = parse_addr)]
    pub(crate) addr: SocketAddr,

    /// Where the cards are kept, one file each (made if missing; read back at start).
    #[arg(long, value_name = "DIR", default_value = "cards", value_parser = cli::file_name)]
    pub(crate) cards: PathBuf,

    /// The page's files, as `cargo xtask web` writes them.
    #[arg(long, value_name = "DIR", default_value = "target/site", value_parser = cli::file_name)]
    pub(crate) site: PathBuf,

    /// Also answer requests sent to NAME (a name or address of this machine, as
    /// typed in a browser), beyond the loopback names and the printed addresses;
    /// repeatable. Any other name is refused, so no other site can reach the server
    /// through its own name (DNS rebinding).
    #[arg(long = "host", value_name = "NAME", value_parser = parse_host)]
    pub(crate) hosts: Vec<String>,
}

/// `--host`: a name or an address, without scheme, port or path.
fn parse_host(text: &str) -> Result<String, String> {
    let name = text.trim().trim_start_matches('[').trim_end_matches(']');
    let plain = !name.is_empty()
        && (name.parse::<std::net::Ipv6Addr>().is_ok()
            || name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')));
    if plain {
        Ok(crate::serve::api::host_name(name))
    } else {
        Err(format!("'{text}' is not a host name or address (as `desk.local` or `192.168.1.20`, no port or scheme)"))
    }
}

/// `--addr`: `HOST:PORT` with an IP address for HOST (`0.0.0.0:8000`, `127.0.0.1:0`, `[::]:8000`).
fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|_| {
        format!("'{text}' is not HOST:PORT with an IP address (0.0.0.0:8000 for every network, 127.0.0.1:8000 for this machine)")
    })
}

/// Runs `serve` until the process is stopped (Ctrl+C).
///
/// # Errors
/// [`CliError::Usage`] when the address cannot be listened on or a
/// directory cannot be used; [`CliError::Runtime`] when the page cannot be built.
pub fn run(args: &ServeArgs) -> Result<(), CliError> {
    let site = load_site(&args.site)?;
    let store = Store::open(&args.cards).map_err(|e| CliError::Usage(format!("--cards: {e}")))?;
    let listener = crate::platform::listen(args.addr)
        .map_err(|e| CliError::Usage(format!("--addr: cannot listen on {}: {e}", args.addr)))?;
    let bound = listener.local_addr().map_err(CliError::runtime)?;
    let token = new_token();
    let cards = store.entries().len();
    let banner = Banner { bound, network: crate::platform::network_addresses(), token: token.clone() };
    let access = Access::new(token, bound.port(), &banner.served(), &args.hosts);
    let mut out = std::io::stdout().lock();
    let printed = write!(out, "{}", banner.text(&args.cards, cards, store.removed_temps())).and_then(|()| out.flush());
    printed.map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))?;
    drop(out);
    crate::platform::run_http_server(listener, Arc::new(Gallery::new(store, site, access))).map_err(CliError::Runtime)
}

/// The command that builds the page into `dir`, as one line: the README's first steps.
pub(crate) fn build_command(dir: &Path) -> String {
    let out = if dir == Path::new(DEFAULT_SITE) { String::new() } else { format!(" --out {}", dir.display()) };
    format!("rustup target add wasm32-unknown-unknown && cargo xtask web{out}")
}

/// Where `cargo xtask web` puts the page, and where `serve` looks for it.
const DEFAULT_SITE: &str = "target/site";

/// The page's files; when `dir` has none, one line with the commands that build it.
fn load_site(dir: &Path) -> Result<Site, CliError> {
    if !dir.join("index.html").is_file() {
        return Err(CliError::Usage(format!(
            "--site: no page in {}: build it first, in timestep-lab's checkout: `{}`",
            dir.display(),
            build_command(dir)
        )));
    }
    Site::load(dir).map_err(|e| CliError::Usage(format!("--site: {e}")))
}

/// 128 random bits as 32 hex digits.
fn new_token() -> String {
    let mut bytes = [0u8; 16];
    crate::platform::random_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What `serve` prints at start.
struct Banner {
    /// The address listened on.
    bound: SocketAddr,
    /// This machine's network addresses (loopback left out).
    network: Vec<IpAddr>,
    /// The token.
    token: String,
}

impl Banner {
    fn url(&self, ip: IpAddr, path: &str) -> String {
        format!("http://{}/{path}?token={}", SocketAddr::new(ip, self.bound.port()), self.token)
    }

    /// Every address the banner prints (the names the server answers to, with the loopback ones).
    fn served(&self) -> Vec<IpAddr> {
        let mut served = self.for_others();
        served.extend(self.local());
        served.extend(Some(self.bound.ip()).filter(|ip| !ip.is_unspecified()));
        served
    }

    /// The address this machine opens, when it is served on loopback: the one
    /// listened on (127.0.0.5 is not 127.0.0.1), or 127.0.0.1 (::1) on every network.
    fn local(&self) -> Option<IpAddr> {
        let ip = self.bound.ip();
        if ip.is_loopback() {
            Some(ip)
        } else if ip.is_unspecified() {
            Some(if ip.is_ipv6() { IpAddr::from(std::net::Ipv6Addr::LOCALHOST) } else { [127, 0, 0, 1].into() })
        } else {
            None
        }
    }

    /// The addresses other devices can open: every network address when
    /// listening on all of them, else the one listened on unless it is loopback.
    fn for_others(&self) -> Vec<IpAddr> {
        let ip = self.bound.ip();
        if ip.is_unspecified() {
            self.network.iter().copied().filter(|a| a.is_ipv4() || ip.is_ipv6()).collect()
        } else if ip.is_loopback() {
            Vec::new()
        } else {
            vec![ip]
        }
    }

    fn text(&self, cards_dir: &Path, cards: usize, removed: usize) -> String {
        let mut text = String::from("timestep-lab serve: the page for every screen, and the gallery of their cards\n");
        let others = self.for_others();
        let local = self.local();
        for ip in &others {
            text += &format!("  other devices open   {}\n", self.url(*ip, ""));
        }
        if let Some(ip) = local {
            text += &format!("  on this machine      {}\n", self.url(ip, ""));
        }
        let gallery_ip = others.first().copied().or(local).unwrap_or(self.bound.ip());
        text += &format!("  the gallery          {}\n", self.url(gallery_ip, "cards"));
        if others.is_empty() {
            let network = self.network.iter().find(|a| a.is_ipv4()).or(self.network.first());
            text += &match (self.bound.ip().is_loopback(), network) {
                (true, Some(ip)) => format!(
                    "  this machine's network address {ip} is not served: --addr binds {} only \
                     (--addr 0.0.0.0:{} serves the network)\n",
                    self.bound.ip(),
                    self.bound.port()
                ),
                _ => "  no network address found: other devices cannot reach this machine\n".to_owned(),
            };
        }
        let removed = match removed {
            0 => String::new(),
            n => format!("; {n} temp file(s) of interrupted posts removed"),
        };
        text += &format!(
            "  cards are kept in    {} ({cards} read back{removed})\n  The address carries the token that lets a screen see, \
             send, rename and remove cards: share it only with your own screens.\n",
            cards_dir.display()
        );
        if let Some(ip) = others.first() {
            text += "  Point a phone's camera at this to open the page:\n";
            text += &qr(&self.url(*ip, ""));
        }
        text += "Ctrl+C stops the server.\n";
        text
    }
}

/// `text` as a QR code in the terminal: two modules a character, light on dark.
fn qr(text: &str) -> String {
    use qrcode::render::unicode::Dense1x2;
    match qrcode::QrCode::new(text.as_bytes()) {
        Ok(code) => {
            code.render::<Dense1x2>().dark_color(Dense1x2::Light).light_color(Dense1x2::Dark).quiet_zone(true).build()
                + "\n"
        }
        Err(err) => format!("  (no QR code: {err})\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn banner(bound: &str) -> Banner {
        Banner {
            bound: bound.parse().expect("an address"),
            network: vec!["192.168.1.20".parse().expect("an ip"), "fe80::1".parse().expect("an ip")],
            token: "0123abcd".to_owned(),
        }
    }

    #[test]
    fn on_every_network_the_banner_gives_the_network_address_with_the_token_and_its_qr_code() {
        let text = banner("0.0.0.0:8000").text(Path::new("cards"), 2, 0);
        assert!(text.contains("other devices open   http://192.168.1.20:8000/?token=0123abcd\n"), "{text}");
        assert!(text.contains("on this machine      http://127.0.0.1:8000/?token=0123abcd\n"), "{text}");
        assert!(text.contains("the gallery          http://192.168.1.20:8000/cards?token=0123abcd\n"), "{text}");
        assert!(text.contains("cards (2 read back)"), "{text}");
        assert!(text.contains('█') || text.contains('▀'), "a QR code is drawn: {text}");
    }

    #[test]
    fn bound_to_loopback_the_banner_names_the_network_address_it_does_not_serve() {
        let text = banner("127.0.0.1:4000").text(Path::new("cards"), 0, 1);
        assert!(!text.contains("other devices open"), "{text}");
        assert!(text.contains("on this machine      http://127.0.0.1:4000/?token=0123abcd\n"), "{text}");
        assert!(text.contains("network address 192.168.1.20 is not served: --addr binds 127.0.0.1 only"), "{text}");
        assert!(!text.contains('▀'), "no QR code of an address no phone can open: {text}");
    }

    #[test]
    fn the_names_served_are_the_printed_addresses_never_the_unspecified_one() {
        let ip = |text: &str| text.parse::<IpAddr>().expect("an ip");
        assert_eq!(banner("0.0.0.0:8000").served(), [ip("192.168.1.20"), ip("127.0.0.1")]);
        assert_eq!(banner("127.0.0.5:4000").served(), [ip("127.0.0.5"), ip("127.0.0.5")], "not 127.0.0.1");
        let text = banner("127.0.0.5:4000").text(Path::new("cards"), 0, 0);
        assert!(text.contains("on this machine      http://127.0.0.5:4000/?token=0123abcd\n"), "{text}");
        assert_eq!(parse_host("[FD00::20]"), Ok("[fd00::20]".to_owned()));
        assert_eq!(parse_host("Desk.Local"), Ok("desk.local".to_owned()));
        assert!(parse_host("desk.local:8000").is_err() && parse_host("http://desk").is_err());
    }

    #[test]
    fn the_address_must_be_an_ip_and_a_port() {
        assert_eq!(parse_addr("127.0.0.1:0"), Ok("127.0.0.1:0".parse().expect("an address")));
        for bad in ["localhost:8000", "8000", "0.0.0.0", "0.0.0.0:99999"] {
            assert!(parse_addr(bad).is_err(), "{bad}");
        }
    }
}
