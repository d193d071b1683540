//! `cargo run -p tokenpad-sim -- [--seed N | --seeds N [--from M] | --ci] [--steps N]
//! [--plant BUG] [--print] [--stats]`: runs seeded histories (see the library); a failing
//! seed prints its shortest failing history and the command that reruns it, and exits 1.
//! `--ci` (and no seed at all) runs the CI seeds, then the regression seeds
//! (`REGRESSION_SEEDS`, each at its own length), then the hostile CI seeds
//! (`HOSTILE_CI_SEEDS`, in a hostile world), the hostile seeds with whales
//! (`WHALES_CI_SEEDS`).
//! `--plant` plants a bug in the service (`bug::Bug::ALL`, e.g. `gas-limit-too-low`) to see
//! the checks find it; `--print` prints a passing seed's history too; `--stats` counts what
//! the histories did (answers by route and status, events by type, movements by outcome);
//! `--hostile` draws histories in which the chain reorganizes too (`ChainFault::Reorg`, and
//! in the middle of a settlement round: `chain_port::MidRound`).
//! `--own-usdc` simulates a chain whose USDC is its own (`node::SEPOLIA_USDC`), not Base's
//! address; `--ci` runs `OWN_USDC_CI_SEEDS` so, last. `--launches` draws launch-heavy
//! histories (`gen::draw_launches`): presales filled by buyers funded by faucet mints.
//! `--whales` draws small pools and an outside trader who buys big, sells all and sends all
//! on (`gen::draw_whales`): pools that owe the trader, and claims carried on.
//! `--release` runs many seeds faster (after a longer build).

use std::process::ExitCode;
use std::time::Instant;
use tokenpad_core::model::token::USDC_ADDRESS;
use tokenpad_sim::bug::Bug;
use tokenpad_sim::node::{simulate_usdc, SEPOLIA_USDC};
use tokenpad_sim::{
    draw_opts, run_seed_opts, Summary, CI_SEEDS, CI_STEPS, HOSTILE_CI_SEEDS, LONG_HOSTILE_CI_SEEDS,
    LONG_STEPS, OWN_USDC_CI_SEEDS, REGRESSION_SEEDS, WHALES_CI_SEEDS, WHALES_REGRESSION_SEEDS,
};

struct Args {
    seeds: std::ops::Range<u64>,
    steps: usize,
    /// Run `REGRESSION_SEEDS` and `HOSTILE_CI_SEEDS` too (the CI run).
    regressions: bool,
    bug: Option<Bug>,
    print: bool,
    stats: bool,
    hostile: bool,
    own_usdc: bool,
    launches: bool,
    whales: bool,
}

fn parse(args: &[String]) -> Option<Args> {
    let mut a = Args {
        seeds: CI_SEEDS,
        steps: CI_STEPS,
        regressions: true,
        bug: None,
        print: false,
        stats: false,
        hostile: false,
        own_usdc: false,
        launches: false,
        whales: false,
    };
    let mut it = args.iter();
    let num = |v: Option<&String>| v.and_then(|v| v.parse::<u64>().ok());
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--seed" => {
                let s = num(it.next())?;
                (a.seeds, a.regressions) = (s..s.checked_add(1)?, false);
            }
            "--seeds" => {
                let n = num(it.next())?;
                a.seeds = a.seeds.start..a.seeds.start.checked_add(n)?;
                a.regressions = false;
            }
            "--from" => {
                let m = num(it.next())?;
                a.seeds = m..m.checked_add(a.seeds.end - a.seeds.start)?;
                a.regressions = false;
            }
            "--steps" => {
                a.steps = usize::try_from(num(it.next())?).ok()?;
                a.regressions = false;
            }
            "--plant" => a.bug = Some(Bug::parse(it.next()?)?),
            "--ci" => (a.seeds, a.steps, a.regressions) = (CI_SEEDS, CI_STEPS, true),
            "--print" => a.print = true,
            "--stats" => a.stats = true,
            "--hostile" => a.hostile = true,
            "--own-usdc" => a.own_usdc = true,
            "--launches" => a.launches = true,
            "--whales" => a.whales = true,
            _ => return None,
        }
    }
    Some(a)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(a) = parse(&args) else {
        let plants: Vec<&str> = tokenpad_sim::bug::Bug::ALL
            .iter()
            .map(|b| b.name())
            .collect();
        eprintln!(
            "usage: sim [--seed N | --seeds N [--from M] | --ci] [--steps N] [--plant {}] [--print] [--stats] [--hostile] [--own-usdc] [--launches] [--whales]",
            plants.join("|")
        );
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let (mut passed, mut total) = (0u64, Summary::default());
    // (seed, steps, hostile, own USDC, whales)
    let mut runs: Vec<(u64, usize, bool, bool, bool)> = a
        .seeds
        .clone()
        .map(|seed| (seed, a.steps, a.hostile, a.own_usdc, a.whales))
        .collect();
    let regressions: &[(u64, usize)] = if a.regressions {
        &REGRESSION_SEEDS
    } else {
        &[]
    };
    runs.extend(
        regressions
            .iter()
            .map(|(seed, steps)| (*seed, *steps, a.hostile, a.own_usdc, a.whales)),
    );
    let (hostile, long, own, whales, whale_regressions) = if a.regressions {
        (
            HOSTILE_CI_SEEDS,
            LONG_HOSTILE_CI_SEEDS,
            OWN_USDC_CI_SEEDS,
            WHALES_CI_SEEDS,
            &WHALES_REGRESSION_SEEDS[..],
        )
    } else {
        (0..0, 0..0, 0..0, 0..0, &[][..])
    };
    runs.extend(
        hostile
            .clone()
            .map(|seed| (seed, CI_STEPS, true, a.own_usdc, a.whales)),
    );
    runs.extend(
        long.clone()
            .map(|seed| (seed, LONG_STEPS, true, a.own_usdc, a.whales)),
    );
    runs.extend(
        own.clone()
            .map(|seed| (seed, CI_STEPS, true, true, a.whales)),
    );
    runs.extend(
        whales
            .clone()
            .chain(whale_regressions.iter().copied())
            .map(|seed| (seed, LONG_STEPS, true, a.own_usdc, true)),
    );
    tokenpad_sim::gen::draw_launches(a.launches);
    for (seed, steps, hostile, own_usdc, whales) in runs {
        tokenpad_sim::gen::draw_whales(whales);
        // A failure shrinks and replays on this thread, on the same chain.
        simulate_usdc(if own_usdc {
            SEPOLIA_USDC
        } else {
            USDC_ADDRESS.0
        });
        match run_seed_opts(seed, steps, a.bug, hostile) {
            Ok(s) => {
                passed += 1;
                total.add(&s);
                if a.print {
                    for (n, step) in draw_opts(seed, steps, a.bug, hostile).0.iter().enumerate() {
                        println!("{n:>4}  {step}");
                    }
                    println!("seed {seed}: digest {}", s.digest);
                }
            }
            Err(f) => {
                println!("{f}");
                return ExitCode::FAILURE;
            }
        }
    }
    let also: Vec<String> = regressions
        .iter()
        .map(|(seed, steps)| format!("{seed} x {steps}"))
        .collect();
    let mut also = if also.is_empty() {
        String::new()
    } else {
        format!(", regression seeds {}", also.join(", "))
    };
    if !hostile.is_empty() {
        also.push_str(&format!(
            ", hostile seeds {}..{} x {CI_STEPS}",
            hostile.start, hostile.end
        ));
    }
    if !long.is_empty() {
        also.push_str(&format!(" and {}..{} x {LONG_STEPS}", long.start, long.end));
    }
    if !own.is_empty() {
        also.push_str(&format!(
            ", hostile on a chain's own USDC {}..{} x {CI_STEPS}",
            own.start, own.end
        ));
    }
    if !whales.is_empty() {
        also.push_str(&format!(
            ", hostile with whales {}..{} and {:?} x {LONG_STEPS}",
            whales.start, whales.end, whale_regressions
        ));
    }
    println!(
        "{passed} seeds ({}..{} x {} steps{also}) passed in {:.1} s: {} steps, {} answers, {} chain movements, {} blocks, {} events; digest {}",
        a.seeds.start,
        a.seeds.end,
        a.steps,
        started.elapsed().as_secs_f64(),
        total.steps,
        total.answered,
        total.intents,
        total.blocks,
        total.events,
        total.digest
    );
    if a.stats {
        for (k, v) in &total.counts {
            println!("{v:>8}  {k}");
        }
    }
    ExitCode::SUCCESS
}
