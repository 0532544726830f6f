//! The page as `timestep-lab serve` serves it, in Chromium: a phone opens
//! the printed address (on 127.0.0.1: tests never use the network address),
//! measures, and its card appears in the gallery another tab shows, without
//! a reload of that tab.

use std::time::{Duration, Instant};

use libtest_mimic::{Completion, Failed, Trial};

use crate::browser::{Backend, Browser};
use crate::harness;
use crate::serve_client::{Served, scratch};

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<Trial> {
    let name = |test| harness::name(module_path!(), test);
    vec![Trial::ignorable_test(
        name("a_phone_s_card_reaches_the_gallery_another_tab_shows_without_a_reload"),
        phone_card_reaches_the_gallery,
    )]
}

/// How long a short tour may take on a software rasteriser on 2 busy cores.
const TOUR: Duration = Duration::from_secs(150);

fn phone_card_reaches_the_gallery() -> Result<Completion, Failed> {
    let site = match crate::browser::site() {
        Ok(site) => site,
        Err(missing) => return harness::unavailable(missing),
    };
    let _one = harness::one_window_at_a_time();
    let cards = scratch("web");
    let served = Served::start_with_site(&cards, site);
    let browser = Browser::start(Backend::WebGl2, [900, 700])?;
    let result = gallery_and_phone(&browser, &served);
    let _ = std::fs::remove_dir_all(&cards);
    result.map(|()| Completion::Completed).map_err(Failed::from)
}

fn gallery_and_phone(browser: &Browser, served: &Served) -> Result<(), String> {
    // The gallery, with the token as printed: it takes the token off its address.
    let gallery = browser.tab()?;
    browser.open(&served.url("/cards"))?;
    browser.eval("window.sameGallery = true; return null")?;
    let address = browser.eval("return location.href")?;
    assert!(!address.as_str().unwrap_or_default().contains("token"), "the token leaves the address bar: {address}");
    let markup = browser.eval("return document.documentElement.outerHTML")?;
    assert!(!markup.as_str().unwrap_or_default().contains(&served.token), "no token in the gallery's markup");
    wait(browser, Duration::from_secs(20), "return document.getElementById('status').textContent", |s| {
        s.contains("No cards yet")
    })?;
    // The phone: the printed address (its host 127.0.0.1), a short tour.
    browser.new_tab()?;
    browser.phone([390, 844], 3.0)?;
    let tour = "&measure&strategies=interpolated,fuzzy&seconds-per-strategy=1&probe-seconds=1&name=test+phone";
    browser.open(&format!("{}{tour}", served.url("/")))?;
    let kept = wait(browser, TOUR, "return document.getElementById('progress').textContent", |s| {
        s.contains("in the gallery") || s.contains("not sent")
    })?;
    assert!(kept.contains("The card is in the gallery (/cards) as report-"), "the page sent its card: {kept}");
    let stored = browser.eval("return sessionStorage.getItem('timestep-lab.token')")?;
    assert_eq!(stored.as_str(), Some(served.token.as_str()), "the page kept the token for its tab");
    // Back to the gallery: the card is listed and compared, and the tab was not reloaded.
    browser.switch_to(&gallery)?;
    let status = wait(browser, Duration::from_secs(20), "return document.getElementById('status').textContent", |s| {
        s.starts_with("1 card")
    })?;
    assert_eq!(browser.eval("return window.sameGallery === true")?, true, "no reload: {status}");
    let listed = browser.eval("return document.getElementById('cards').innerText")?;
    assert!(listed.as_str().unwrap_or_default().contains("test phone"), "the card is listed by its name: {listed}");
    let compared = wait(
        browser,
        Duration::from_secs(30),
        "const d = document.getElementById('comparison').contentDocument; return d ? d.body.innerText : ''",
        |s| s.contains("test phone"),
    )?;
    assert!(compared.contains("fuzzy"), "the comparison shows the card's runs: {compared}");
    // The gallery on a phone: its buttons are for fingers.
    browser.phone([390, 844], 3.0)?;
    let narrow = browser.eval(
        "return [...document.querySelectorAll('button, a.button')].every(b => { const r = b.getBoundingClientRect(); \
         return r.height >= 44 && r.right <= window.visualViewport.width + 1; })",
    )?;
    assert_eq!(narrow, true, "every button is 44 px tall and on the phone's screen");
    let files = std::fs::read_dir(served_dir(served)).map_or(0, Iterator::count);
    assert!(files >= 1, "the card's file is written");
    Ok(())
}

/// The cards directory a [`Served`] keeps (its banner says).
fn served_dir(served: &Served) -> std::path::PathBuf {
    let line = served.banner.lines().find_map(|l| l.trim().strip_prefix("cards are kept in")).unwrap_or_default();
    std::path::PathBuf::from(line.trim().rsplit_once(" (").map_or(line.trim(), |(dir, _)| dir))
}

/// Runs `script` until `done` holds for its text, or fails after `limit` with the last text.
fn wait(browser: &Browser, limit: Duration, script: &str, done: impl Fn(&str) -> bool) -> Result<String, String> {
    let deadline = Instant::now() + limit;
    loop {
        let value = browser.eval(script)?;
        let text = value.as_str().unwrap_or_default().to_owned();
        if done(&text) {
            return Ok(text);
        }
        if Instant::now() > deadline {
            return Err(format!("after {limit:?}: '{text}'; the page says '{}'", browser.message()?));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}
