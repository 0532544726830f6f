//! `timestep-lab`: the windowed demo (`run`, the default), the headless
//! virtual monitor (`simulate`), the report card (`measure`), `compare`, and `serve` for every
//! screen on the network.
//!
//! Errors caused by the user's input (a bad flag value, an unknown strategy,
//! an unreadable trace, an output file that cannot be written) end the
//! process with exit code 2 and one line on stderr naming the flag;
//! everything else that fails ends it with exit code 1. `--help` and
//! `--version` print to stdout and exit 0.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use timestep_lab::commands;
use timestep_lab::error::CliError;

/// See, measure and compare game-loop timing strategies.
///
/// Without a subcommand, opens the demo window (`run`).
#[derive(Parser, Debug)]
#[command(name = "timestep-lab", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    run: timestep_lab::commands::run::RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the demo window (the default).
    Run(timestep_lab::commands::run::RunArgs),
    /// Run strategies against virtual monitors and print what they do.
    Simulate(timestep_lab::commands::simulate::SimulateArgs),
    /// Measure this machine's monitors: a scripted tour that writes a report card.
    Measure(timestep_lab::commands::measure::MeasureArgs),
    /// Put report cards and simulator runs side by side.
    Compare(timestep_lab::commands::compare::CompareArgs),
    /// Diagnose a game from its frame capture (PresentMon, OCAT, CapFrameX).
    Diagnose(timestep_lab::commands::diagnose::DiagnoseArgs),
    /// Serve the page to every screen on the network and gather their cards.
    Serve(timestep_lab::commands::serve::ServeArgs),
}

/// Prints `err` as one line (`timestep-lab: …`) and maps it to its exit code.
fn fail(err: &CliError) -> ExitCode {
    eprintln!("timestep-lab: {err}");
    ExitCode::from(err.exit_code())
}

fn main() -> ExitCode {
    // Both change the process before any thread exists.
    timestep_lab::platform::quiet_device_select();
    timestep_lab::platform::keep_freed_heap_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version: clap's own output on stdout, exit 0.
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => return fail(&CliError::from_clap(&err)),
    };
    // A tour prints its progress and its end; its per-strategy lines wait for RUST_LOG=info.
    if matches!(cli.command, Some(Command::Measure(_))) {
        timestep_lab::platform::init_quiet_logger();
    } else {
        timestep_lab::platform::init_logger();
    }
    let result = match cli.command {
        Some(Command::Simulate(args)) => commands::simulate::run(&args),
        Some(Command::Measure(args)) => commands::measure::run(&args),
        Some(Command::Compare(args)) => commands::compare::run(&args),
        Some(Command::Diagnose(args)) => commands::diagnose::run(&args),
        Some(Command::Serve(args)) => commands::serve::run(&args),
        Some(Command::Run(args)) => commands::run::run(&args),
        None => commands::run::run(&cli.run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&err),
    }
}
