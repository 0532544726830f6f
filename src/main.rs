//! `timestep-lab`: the windowed demo (`run`, the default) and the headless
//! virtual monitor (`simulate`).
//!
//! Errors caused by the user's input (a bad rate, an unknown strategy, an
//! unreadable trace) end the process with exit code 2 and one line on
//! stderr; everything else that fails ends it with exit code 1.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// See, measure and compare game-loop timing strategies.
///
/// Without a subcommand, opens the demo window (`run`).
#[derive(Parser, Debug)]
#[command(name = "timestep-lab", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    run: timestep_lab::app::RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Open the demo window (the default).
    Run(timestep_lab::app::RunArgs),
    /// Run strategies against virtual monitors and print what they do.
    Simulate(timestep_lab::simulate::SimulateArgs),
    /// Put report cards and simulator runs side by side.
    Compare(timestep_lab::report_card::CompareArgs),
}

fn main() -> ExitCode {
    timestep_lab::render::heap::keep_freed_heap_memory();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Simulate(args)) => timestep_lab::simulate::run_simulate(&args),
        Some(Command::Compare(args)) => timestep_lab::report_card::run_compare(&args),
        Some(Command::Run(args)) => timestep_lab::app::run(&args),
        None => timestep_lab::app::run(&cli.run),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("timestep-lab: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
