//! The page's entry points: `cargo xtask web` builds this crate for
//! `wasm32-unknown-unknown`; wasm-bindgen calls [`start`] when the page loads,
//! and the page's compare picker calls [`compare_cards`]. Everything they do
//! is in the app (`timestep_lab::commands::page`) and its platform seam; on
//! other targets this crate is empty.

#[cfg(target_arch = "wasm32")]
mod page {
    use timestep_lab::commands::page;
    use wasm_bindgen::prelude::wasm_bindgen;

    /// Reads the page's query parameters and opens the demo on its canvas
    /// (or `measure`'s tour); a bad parameter is shown on the page instead.
    /// With `?compare` the page waits for the cards the user picks.
    #[wasm_bindgen(start)]
    pub fn start() {
        timestep_lab::platform::init_logger();
        timestep_lab::platform::report_panics_on_page();
        let query = timestep_lab::platform::page_query();
        if page::is_compare(&query) {
            log::info!("compare: pick report cards (report-….json)");
            return;
        }
        if let Err(err) = page::run(&query) {
            timestep_lab::platform::show_message(&err.to_string());
        }
    }

    /// The compare page (`compare --html`) of the files the user picked:
    /// `names[i]` holds `texts[i]`.
    ///
    /// # Errors
    /// The one line naming the first file that is not a card or simulator runs.
    #[wasm_bindgen]
    pub fn compare_cards(names: Vec<String>, texts: Vec<String>) -> Result<String, String> {
        let files: Vec<(String, String)> = names.into_iter().zip(texts).collect();
        page::compare_html(&files).map_err(|e| e.to_string())
    }
}
