//! The page's entry point: `cargo xtask web` builds this crate for
//! `wasm32-unknown-unknown` and wasm-bindgen calls [`start`] when the page
//! loads. Everything it does is in the app (`timestep_lab::commands::page`)
//! and its platform seam; on other targets this crate is empty.

#[cfg(target_arch = "wasm32")]
mod page {
    use wasm_bindgen::prelude::wasm_bindgen;

    /// Reads the page's query parameters and opens the demo on its canvas; a
    /// bad parameter is shown on the page instead.
    #[wasm_bindgen(start)]
    pub fn start() {
        timestep_lab::platform::init_logger();
        timestep_lab::platform::report_panics_on_page();
        let query = timestep_lab::platform::page_query();
        if let Err(err) = timestep_lab::commands::page::run(&query) {
            log::error!("{err}");
            timestep_lab::platform::show_message(&err.to_string());
        }
    }
}
