//! The crate's tests in headless Chromium: the unit tests and the `scenarios`
//! and `clock` tests, built for `wasm32-unknown-unknown` with every feature,
//! run by wasm-bindgen-test through chromedriver, the clock being the page's.
//!
//! One trial runs
//!
//! ```text
//! cargo test -p timestep-core --target wasm32-unknown-unknown --all-features --lib --test scenarios --test clock
//! ```
//!
//! (the runner is `wasm-bindgen-test-runner`, set in `.cargo/config.toml`)
//! and checks that every test the host runs in those targets passed in the
//! browser, less the few that need the host ([`HOST_ONLY`]): a test module
//! that forgot `use wasm_bindgen_test::wasm_bindgen_test as test` would
//! otherwise not run there, silently.
//!
//! Without `chromium`, `chromedriver`, the wasm32 target or
//! `wasm-bindgen-test-runner` 0.2.130 (`cargo install wasm-bindgen-cli
//! --version 0.2.130`) the trial is reported as ignored, or fails with
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI), as the workspace's browser tests do.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    host::main();
}

/// Built for wasm32 as every test target is (`cargo test --target wasm32…`
/// without `--test`), it has nothing to run there.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use libtest_mimic::{Arguments, Completion, Failed, Trial};

    /// The variable that turns a skip into a failure (CI sets it).
    const REQUIRE_GPU: &str = "TIMESTEP_LAB_REQUIRE_GPU";

    /// The runner must be the version of the `wasm-bindgen` in Cargo.lock.
    const RUNNER_VERSION: &str = "0.2.130";

    /// The targets that run in the browser, as `cargo test` names them.
    const TARGETS: [&str; 3] = ["--lib", "--test=scenarios", "--test=clock"];

    /// Tests that need the host, compiled out on wasm32: a real sleep, a
    /// caught panic (a panic aborts there), the file system, a blocking loop
    /// (`pacer::run`: a page's loop is requestAnimationFrame's).
    const HOST_ONLY: [&str; 4] = [
        "time::tests::a_wait_sleeps_until_the_spin_margin_then_spins_to_the_deadline",
        "pacer::tests::a_run_loop_s_closures_count_time_and_frames_and_change_the_pacer_without_a_clock_of_their_own",
        "pacer::tests::a_run_loop_whose_present_blocks_until_the_refresh_is_judged_vsynced",
        "pacer::tests::a_run_loop_whose_present_returns_at_once_is_judged_not_vsynced",
    ];

    /// Test modules compiled out on wasm32 whole: the property tests, as
    /// proptest does not build there (`strategy/mod.rs`).
    const HOST_ONLY_MODULES: [&str; 1] = ["strategy::props::"];

    /// How long building and running the tests may take (a debug build of the
    /// core and its dependencies for wasm32 on 2 shared cores, then the run).
    const LIMIT: Duration = Duration::from_secs(900);

    pub fn main() {
        let trial = Trial::ignorable_test("the_core_s_tests_pass_in_headless_chromium", || match tools() {
            Ok(tools) => in_chromium(&tools).map(|()| Completion::Completed),
            Err(missing) if std::env::var_os(REQUIRE_GPU).is_some() => {
                Err(format!("{REQUIRE_GPU} is set, but {missing}").into())
            }
            Err(missing) => Ok(Completion::ignored_with(format!("{missing}; {REQUIRE_GPU}=1 makes this a failure"))),
        });
        libtest_mimic::run(&Arguments::from_args(), vec![trial]).exit()
    }

    /// What the run needs from the machine.
    struct Tools {
        chromium: PathBuf,
        chromedriver: PathBuf,
    }

    /// The browser, its driver, the runner and the target, or what is missing
    /// (with how to install it).
    fn tools() -> Result<Tools, String> {
        let chromium = on_path("chromium").ok_or("no chromium (Debian's chromium package)")?;
        let chromedriver = std::env::var_os("CHROMEDRIVER")
            .map(PathBuf::from)
            .or_else(|| on_path("chromedriver"))
            .ok_or("no chromedriver (Debian's chromium-driver package)")?;
        let version = Command::new("wasm-bindgen-test-runner").arg("--version").output();
        let version = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned()).unwrap_or_default();
        if version != format!("wasm-bindgen-test-runner {RUNNER_VERSION}") {
            let found = if version.is_empty() { "none".to_owned() } else { version };
            return Err(format!(
                "no wasm-bindgen-test-runner {RUNNER_VERSION} (found: {found}; \
                 cargo install wasm-bindgen-cli --version {RUNNER_VERSION})"
            ));
        }
        if !wasm_target_installed() {
            // As the workspace's web tests do: add the target where rustup can.
            let added = Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]).status();
            if !added.is_ok_and(|s| s.success()) || !wasm_target_installed() {
                return Err("no wasm32 target (rustup target add wasm32-unknown-unknown)".to_owned());
            }
        }
        Ok(Tools { chromium, chromedriver })
    }

    #[expect(clippy::print_stderr, reason = "how many tests ran there and for how long: the trial's report")]
    fn in_chromium(tools: &Tools) -> Result<(), Failed> {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        // Test names as both harnesses print them (`time::tests::…`, without
        // the crate's name), each as often as it occurs in the three targets.
        let mut expected = Vec::new();
        for target in TARGETS {
            let listed = cargo(crate_dir, &[target, "--", "--list"], &[])?;
            expected.extend(listed.stdout.lines().filter_map(|line| line.strip_suffix(": test")).map(str::to_owned));
        }
        for host_only in HOST_ONLY {
            let at = expected.iter().position(|name| name == host_only);
            let at = at.ok_or_else(|| format!("{host_only} is no longer a test: take it off HOST_ONLY"))?;
            expected.remove(at);
        }
        for module in HOST_ONLY_MODULES {
            let before = expected.len();
            expected.retain(|name| !name.starts_with(module));
            if expected.len() == before {
                return Err(format!("{module} has no tests any more: take it off HOST_ONLY_MODULES").into());
            }
        }
        expected.sort();

        // The flags that work here (shared/WEB.md); the runner adds
        // --headless and --no-sandbox itself.
        let profile = std::env::temp_dir().join(format!("timestep-core-chromium-{}", std::process::id()));
        std::fs::create_dir_all(&profile).map_err(|e| format!("cannot make {}: {e}", profile.display()))?;
        let webdriver = profile.join("webdriver.json");
        let args = [
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            format!("--user-data-dir={}", profile.join("user-data").display()),
        ];
        let capabilities = format!(
            r#"{{"goog:chromeOptions": {{"binary": {}, "args": [{}]}}}}"#,
            json_string(&tools.chromium.to_string_lossy()),
            args.iter().map(|a| json_string(a)).collect::<Vec<_>>().join(", "),
        );
        std::fs::write(&webdriver, capabilities).map_err(|e| format!("cannot write {}: {e}", webdriver.display()))?;

        let mut wasm_args = vec!["--target", "wasm32-unknown-unknown"];
        wasm_args.extend(TARGETS);
        let env = [
            ("CHROMEDRIVER", tools.chromedriver.as_os_str()),
            ("WASM_BINDGEN_TEST_WEBDRIVER_JSON", webdriver.as_os_str()),
            // The runner's own limit is 20 s for the whole run of a binary.
            ("WASM_BINDGEN_TEST_TIMEOUT", "300".as_ref()),
        ];
        let started = Instant::now();
        let run = cargo(crate_dir, &wasm_args, &env);
        let _ = std::fs::remove_dir_all(&profile);
        let run = run?;
        eprintln!("built and ran in headless Chromium in {:.0} s", started.elapsed().as_secs_f64());

        let output = format!("{}\n{}", run.stdout, run.stderr);
        let mut passed: Vec<String> = output
            .lines()
            .filter_map(|line| line.trim().strip_prefix("test ")?.strip_suffix(" ... ok"))
            .map(str::to_owned)
            .collect();
        passed.sort();
        let failed =
            output.lines().filter(|line| line.trim().starts_with("test ") && line.contains(" ... FAIL")).count();
        let (expected_names, passed_names): (BTreeSet<_>, BTreeSet<_>) =
            (expected.iter().collect(), passed.iter().collect());
        let missing: Vec<_> = expected_names.difference(&passed_names).collect();
        let unexpected: Vec<_> = passed_names.difference(&expected_names).collect();
        if !run.success || failed > 0 || passed != expected {
            // The run's output when something failed there; the names suffice otherwise.
            let output = if run.success && failed == 0 { "" } else { &output };
            return Err(format!(
                "in headless Chromium: {} passed of {} expected, {failed} failed; \
                 not passed there: {missing:?}; passed there only: {unexpected:?}\n{output}",
                passed.len(),
                expected.len()
            )
            .into());
        }
        eprintln!("{} tests passed in headless Chromium", passed.len());
        Ok(())
    }

    /// What a finished `cargo test` said.
    struct Run {
        success: bool,
        stdout: String,
        stderr: String,
    }

    /// `cargo test -p timestep-core --all-features ARGS` in the crate's
    /// folder with `env`, within [`LIMIT`].
    fn cargo(dir: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Result<Run, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let log = std::env::temp_dir().join(format!("timestep-core-chromium-{}.log", std::process::id()));
        let out = std::fs::File::create(&log).map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut child = Command::new(cargo)
            .current_dir(dir)
            .args(["test", "-p", "timestep-core", "--all-features"])
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        let mut stdout = child.stdout.take().ok_or("no stdout")?;
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
            text
        });
        drop(out);
        let deadline = Instant::now() + LIMIT;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                let stderr = std::fs::read_to_string(&log).unwrap_or_default();
                return Err(format!("cargo test {} took more than {LIMIT:?}:\n{stderr}", args.join(" ")));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let stdout = reader.join().unwrap_or_default();
        let stderr = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        if !status.success() && args.contains(&"--list") {
            return Err(format!("cargo test {}: {status}\n{stderr}", args.join(" ")));
        }
        Ok(Run { success: status.success(), stdout, stderr })
    }

    /// `text` as a JSON string.
    fn json_string(text: &str) -> String {
        let mut quoted = String::from('"');
        for c in text.chars() {
            match c {
                '"' => quoted.push_str("\\\""),
                '\\' => quoted.push_str("\\\\"),
                c if c.is_control() => quoted.push_str(&format!("\\u{:04x}", c as u32)),
                c => quoted.push(c),
            }
        }
        quoted.push('"');
        quoted
    }

    /// Whether the standard library for `wasm32-unknown-unknown` is installed.
    fn wasm_target_installed() -> bool {
        let libdir = Command::new("rustc")
            .args(["--print", "target-libdir", "--target", "wasm32-unknown-unknown"])
            .output()
            .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
        libdir.is_ok_and(|dir| {
            std::fs::read_dir(dir).is_ok_and(|mut entries| {
                entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libcore-")))
            })
        })
    }

    fn on_path(tool: &str) -> Option<PathBuf> {
        let paths = std::env::var_os("PATH")?;
        std::env::split_paths(&paths).map(|dir| dir.join(tool)).find(|path| path.is_file())
    }
}
