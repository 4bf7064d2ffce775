//! Scenario files: a variant author's own tests, without Rust.
//!
//! A pack or variant keeps them in `tests/*.yaml`. Each sets up a game
//! (players, seed, extra variants, tower), runs steps (chance, bots
//! playing on, position edits, forced tower results, one staged action,
//! answers to questions) and checks expectations, including a golden
//! transcript file. `shogun test` runs them; `--update` rewrites goldens.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::core::*;
use crate::engine::Engine;
use crate::play::{Game, Layout, Until};
use crate::rules::{self, VariantArg};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub description: String,
    #[serde(default = "default_players")]
    pub players: u8,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Options for the variant the file belongs to (default: its defaults).
    #[serde(default)]
    pub options: BTreeMap<String, f64>,
    /// Variants on top of the pack (and of the variant the file belongs to).
    #[serde(default)]
    pub variants: Vec<String>,
    #[serde(default)]
    pub tower: Option<String>,
    /// preset or draft (default: the map's).
    #[serde(default)]
    pub setup: Option<String>,
    /// Bots by seat for `play` steps (the last fills the rest).
    #[serde(default = "default_bots")]
    pub bots: Vec<String>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub expect: Vec<Expect>,
}

fn default_players() -> u8 {
    4
}
fn default_seed() -> u64 {
    1
}
fn default_bots() -> Vec<String> {
    vec!["greedy".into()]
}

/// One step; exactly one key.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Resolve this many chance decisions.
    #[serde(default)]
    pub chance: Option<u32>,
    /// Let bots and chance play on: step, phase, round, winter or end.
    #[serde(default)]
    pub play: Option<String>,
    /// Answer the pending question: an option's number or the answer.
    #[serde(default)]
    pub choose: Option<String>,
    /// A REPL command, exactly as typed at the prompt (`set Settsu
    /// armies=3`, `perform A taxes Settsu`, `plan taxes:Settsu bid:1`,
    /// `plan done`, `view B`, `step 3`, `winter`, `2`, ...).
    #[serde(default, rename = "do")]
    pub command: Option<String>,
    /// Expectations checked at this point of the steps.
    #[serde(default)]
    pub expect: Option<Vec<Expect>>,
}

/// One expectation: a province, a seat, the winner, or a golden transcript.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub province: Option<String>,
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(default)]
    pub armies: Option<u16>,
    #[serde(default)]
    pub unrest: Option<u16>,
    #[serde(default)]
    pub buildings: Option<Vec<String>>,
    #[serde(default)]
    pub seat: Option<String>,
    #[serde(default)]
    pub chests: Option<i64>,
    #[serde(default)]
    pub rice: Option<i64>,
    #[serde(default)]
    pub points: Option<i64>,
    #[serde(default)]
    pub provinces: Option<usize>,
    #[serde(default)]
    pub supply: Option<u16>,
    #[serde(default)]
    pub winner: Option<String>,
    /// A golden transcript file (relative to the scenario file).
    #[serde(default)]
    pub transcript: Option<String>,
    /// The transcript contains this text.
    #[serde(default)]
    pub transcript_contains: Option<String>,
    /// The transcript does not contain this text.
    #[serde(default)]
    pub transcript_lacks: Option<String>,
    /// Peasants in the general supply.
    #[serde(default)]
    pub peasants: Option<u16>,
    /// Unrest markers in the supply.
    #[serde(default)]
    pub unrest_supply: Option<u16>,
    /// The turn order of the round, seats comma separated (`A,C,B,D`).
    #[serde(default)]
    pub turn_order: Option<String>,
    /// Answers the pending question offers (as `options` names them).
    #[serde(default)]
    pub offered: Option<Vec<String>>,
    /// Answers the pending question does not offer.
    #[serde(default)]
    pub not_offered: Option<Vec<String>>,
    /// The special card `seat` holds this round (an id, or `none`).
    #[serde(default)]
    pub special: Option<String>,
    /// Exactly these cubes lie in the tray (seat or `peasants` -> count;
    /// what is not listed is 0).
    #[serde(default)]
    pub tray: Option<BTreeMap<String, u16>>,
    /// Exactly these cubes are stuck in the tower, all levels together.
    #[serde(default)]
    pub tower: Option<BTreeMap<String, u16>>,
    /// The event in force this round (its id, or `none`).
    #[serde(default)]
    pub event: Option<String>,
    /// The year's face-up events not yet turned up, by id, in order.
    #[serde(default)]
    pub events_left: Option<Vec<String>>,
    /// Buildings left in the supply, by kind (kinds not listed are not
    /// checked).
    #[serde(default)]
    pub building_supply: Option<BTreeMap<String, u16>>,
}

/// What running a scenario found.
#[derive(Debug, Default)]
pub struct Report {
    pub failures: Vec<String>,
    pub updated: Vec<PathBuf>,
}

/// Where a scenario's rules come from.
pub struct Setting<'a> {
    pub pack_dir: &'a Path,
    pub map_path: &'a Path,
    pub layout: &'a Layout,
    /// Simulated throws behind the battle odds the REPL shows after each
    /// step (`crate::play::preview::TRIALS` by default).
    pub odds_trials: u32,
}

/// Runs one scenario file. `own` is the variant the file belongs to.
pub fn run(setting: &Setting, path: &Path, own: Option<&Path>, update: bool) -> Result<Report, String> {
    let text = crate::files::read_text(path)?;
    let file = rules::yaml::parse::<Scenario>(path, &text).map_err(|d| d.to_string())?;
    let sc = file.value;
    if sc.expect.is_empty() && sc.steps.iter().all(|s| s.expect.as_ref().is_none_or(|l| l.is_empty())) {
        return Err(format!("{}: `expect` lists nothing to check: a scenario that checks nothing always passes", path.display()));
    }
    let at = |i: usize, what: &str| {
        let at = file.pos.of(&format!("{what}/{i}"));
        format!("{}:{}:{}", path.display(), at.line, at.column)
    };
    let mut variants: Vec<(PathBuf, VariantArg)> = Vec::new();
    if own.is_none() && !sc.options.is_empty() {
        return Err(format!("{}: `options` are for a variant's own tests (this file is not in a variant's tests/ folder)", path.display()));
    }
    if let Some(dir) = own {
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let options = sc.options.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let at = file.pos.of("options");
        let given = Some(format!("{}:{}:{}", path.display(), at.line, at.column));
        variants.push((dir.to_path_buf(), VariantArg { name, options, given }));
    }
    for (i, v) in sc.variants.iter().enumerate() {
        variants.extend(setting.layout.variants(std::slice::from_ref(v), &at(i, "variants"))?);
    }
    let rules = rules::load_with(setting.pack_dir, setting.map_path, &variants).map_err(|d| d.to_string())?;
    let engine = Engine::with_options(rules, sc.tower.as_deref(), Default::default()).map_err(|d| d.to_string())?;
    let setup = match sc.setup.as_deref() {
        None => engine.default_setup(sc.players),
        Some(s) => s.parse::<SetupMode>().map_err(|e| format!("{}: setup: {e}", path.display()))?,
    };
    let names = crate::bots::fill_seats(&sc.bots, sc.players, true, &format!("{}: bots", path.display()))?;
    let game = Game::new(engine, sc.players, sc.seed, setup, &names).map_err(|e| format!("{}: {e}", path.display()))?;
    // Steps written as commands go through the REPL's own parser.
    let config = crate::repl::Config { spec: Default::default(), players: sc.players, seed: sc.seed, seats: names };
    let mut repl = crate::repl::Repl::from_game(config, game);
    repl.odds_trials = setting.odds_trials;
    let mut check = Checker { path, sc: &sc, update, report: Report::default() };
    // A failing step ends the run; failures found before it are kept.
    let mut steps = || -> Result<(), String> {
        for (i, step) in sc.steps.iter().enumerate() {
            let here = at(i, "steps");
            let keys = [step.chance.is_some(), step.play.is_some(), step.choose.is_some(), step.command.is_some(), step.expect.is_some()];
            if keys.iter().filter(|k| **k).count() != 1 {
                return Err(format!(
                    "{here}: each step is exactly one of chance, play, choose, do, expect (edits are REPL commands: `do: set ...`, `do: force ...`, `do: perform ...`)"
                ));
            }
            let fail = |m: String| format!("{here}: {m}");
            let game = repl.game_mut();
            if let Some(k) = step.chance {
                for _ in 0..k {
                    if game.engine.actor(game.state()) != Actor::Chance {
                        return Err(fail(format!("chance is not to act now ({:?})", game.engine.actor(game.state()))));
                    }
                    game.decide(Decision::Chance).map_err(|e| fail(e.to_string()))?;
                }
            } else if let Some(until) = &step.play {
                let u: Until = until.parse().map_err(|e: crate::play::NotationError| fail(format!("play: {e}")))?;
                game.advance(u).map_err(|e| fail(e.to_string()))?;
            } else if let Some(c) = &step.choose {
                // The REPL's `choose`: one reader of answers.
                repl.exec(&format!("choose {c}")).map_err(|e| fail(format!("choose {c}: {e}")))?;
            } else if let Some(c) = &step.command {
                repl.exec(c).map_err(|e| fail(format!("`{c}`: {e}")))?;
            } else if let Some(list) = &step.expect {
                for (j, e) in list.iter().enumerate() {
                    let at = file.pos.of(&format!("steps/{i}/expect/{j}"));
                    check.check(e, &format!("{}:{}:{}", path.display(), at.line, at.column), repl.game())?;
                }
            }
        }
        Ok(())
    };
    if let Err(e) = steps() {
        check.report.failures.push(e);
        return Ok(check.report);
    }
    for (i, e) in sc.expect.iter().enumerate() {
        check.check(e, &at(i, "expect"), repl.game())?;
    }
    Ok(check.report)
}

/// Checks expectations against a game, gathering failures.
struct Checker<'a> {
    path: &'a Path,
    sc: &'a Scenario,
    update: bool,
    report: Report,
}

impl Checker<'_> {
    /// Checks one expectation: every key it gives, in the order the keys
    /// are listed in `Expect`; a mismatch is a failure in the report, a key
    /// that does not read (a seat or province that is not there) an error.
    fn check(&mut self, e: &Expect, here: &str, game: &Game) -> Result<(), String> {
        let at = At { here, game, n: game.notation() };
        let mut log = game.lines().into_iter().skip(1).collect::<Vec<_>>().join("\n");
        if !log.is_empty() {
            log.push('\n');
        }
        self.supplies(e, &at);
        self.turn_order(e, &at)?;
        if !self.question(e, &at) {
            return Ok(());
        }
        if let Some(t) = &e.transcript_lacks
            && log.contains(t.as_str())
        {
            self.report.failures.push(format!("{here}: the transcript contains {t:?}"));
        }
        self.province(e, &at)?;
        self.piles(e, &at)?;
        self.events(e, &at)?;
        self.seat(e, &at)?;
        self.winner(e, &at)?;
        if let Some(t) = &e.transcript_contains
            && !log.contains(t.as_str())
        {
            self.report.failures.push(format!("{here}: the transcript does not contain {t:?}"));
        }
        self.golden(e, &at, &log)
    }

    /// A failure unless `got` is `want`.
    fn compare(&mut self, here: &str, what: &str, got: String, want: String) {
        if got != want {
            self.report.failures.push(format!("{here}: {what}: expected {want}, got {got}"));
        }
    }

    /// The general peasant supply and the unrest markers left.
    fn supplies(&mut self, e: &Expect, at: &At) {
        let st = at.game.state();
        if let Some(k) = e.peasants {
            self.compare(at.here, "general peasant supply", st.peasants.to_string(), k.to_string());
        }
        if let Some(k) = e.unrest_supply {
            self.compare(at.here, "unrest markers in the supply", st.unrest.to_string(), k.to_string());
        }
    }

    fn turn_order(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let Some(order) = &e.turn_order else { return Ok(()) };
        let n = &at.n;
        let got: Vec<&str> = at.game.state().turn_order.iter().map(|&s| n.seat_name(s)).collect();
        let want: Vec<&str> = order.split(',').map(|s| n.seat(s).map(|s| n.seat_name(s))).collect::<Result<_, _>>().map_err(|m| at.error(m))?;
        self.compare(at.here, "turn order", got.join(","), want.join(","));
        Ok(())
    }

    /// What the pending question offers and does not. False when the
    /// expectation asks about options and no question is pending (the rest
    /// of it is not checked then).
    fn question(&mut self, e: &Expect, at: &At) -> bool {
        if e.offered.is_none() && e.not_offered.is_none() {
            return true;
        }
        let here = at.here;
        let Legal::Choose { options, .. } = at.game.engine.legal(at.game.state()) else {
            self.report.failures.push(format!("{here}: no question is pending"));
            return false;
        };
        let names: Vec<String> = options.iter().map(|o| at.n.text(o)).collect();
        let offered = |x: &str| names.iter().any(|name| name.eq_ignore_ascii_case(x));
        for want in e.offered.iter().flatten().filter(|w| !offered(w)) {
            self.report.failures.push(format!("{here}: `{want}` is not offered (options: {})", names.join(", ")));
        }
        for not in e.not_offered.iter().flatten().filter(|w| offered(w)) {
            self.report.failures.push(format!("{here}: `{not}` is offered (options: {})", names.join(", ")));
        }
        true
    }

    /// A province's owner, armies, unrest and buildings.
    fn province(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let Some(p) = &e.province else { return Ok(()) };
        let (n, here) = (&at.n, at.here);
        let p = n.province(p).map_err(|m| at.error(m))?;
        let prov = at.game.state().provinces[p.index()];
        let name = n.province_name(p);
        if let Some(o) = &e.owner {
            let want = n.owner(o).map_err(|m| at.error(m))?;
            self.compare(here, &format!("{name} owner"), n.owner_name(prov.owner).to_string(), n.owner_name(want).to_string());
        }
        if let Some(a) = e.armies {
            self.compare(here, &format!("{name} armies"), prov.armies.to_string(), a.to_string());
        }
        if let Some(u) = e.unrest {
            self.compare(here, &format!("{name} unrest"), prov.unrest.to_string(), u.to_string());
        }
        if let Some(b) = &e.buildings {
            let kinds = &at.game.engine.rules.rules.components.buildings;
            let mut got: Vec<String> = kinds.iter().enumerate().filter(|(k, _)| prov.has(*k)).map(|(_, b)| b.id.clone()).collect();
            let mut want = b.clone();
            got.sort();
            want.sort();
            self.compare(here, &format!("{name} buildings"), got.join(","), want.join(","));
        }
        Ok(())
    }

    /// The cubes in the tray and inside the tower, in the notation's words
    /// (`A=2 peasants=1`).
    fn piles(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let st = at.game.state();
        let pile_text = |p: &Pile| -> String {
            let mut out = String::new();
            crate::play::edit::write_pile(&at.n, p, &mut out);
            out.trim_start().to_string()
        };
        let want_pile = |m: &BTreeMap<String, u16>| -> Result<Pile, String> {
            let mut pile = Pile::default();
            for (k, c) in m {
                at.n.pile_count(&mut pile, k, *c).map_err(|m| at.error(m))?;
            }
            Ok(pile)
        };
        if let Some(m) = &e.tray {
            self.compare(at.here, "tray", pile_text(&st.tray), pile_text(&want_pile(m)?));
        }
        if let Some(m) = &e.tower {
            self.compare(at.here, "tower", pile_text(&st.tower_contents()), pile_text(&want_pile(m)?));
        }
        Ok(())
    }

    /// The event in force, the year's events left and the buildings left
    /// in the supply.
    fn events(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let (st, n, here) = (at.game.state(), &at.n, at.here);
        let cards = &at.game.engine.rules.cards;
        let event_id = |e: Option<u8>| e.map_or_else(|| "none".to_string(), |e| cards.events[e as usize].id.clone());
        if let Some(want) = &e.event {
            let want = if want == "none" { "none".to_string() } else { event_id(Some(n.event(want).map_err(|m| at.error(m))? as u8)) };
            self.compare(here, "event in force", event_id(st.event), want);
        }
        if let Some(want) = &e.events_left {
            let got: Vec<String> = st.year_events.iter().map(|&e| event_id(Some(e))).collect();
            let want: Vec<String> = want.iter().map(|w| n.event(w).map(|e| event_id(Some(e as u8)))).collect::<Result<_, _>>().map_err(|m| at.error(m))?;
            self.compare(here, "the year's events left", got.join(","), want.join(","));
        }
        for (kind, want) in e.building_supply.iter().flatten() {
            let k = n.building(kind).map_err(|m| at.error(m))?;
            self.compare(here, &format!("{kind}s in the supply"), st.buildings[k].to_string(), want.to_string());
        }
        Ok(())
    }

    /// A seat's special card, chests, rice, points, provinces and supply.
    fn seat(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let (st, n, here) = (at.game.state(), &at.n, at.here);
        if e.special.is_some() && e.seat.is_none() {
            return Err(format!("{here}: `special` needs the `seat` it belongs to"));
        }
        let Some(s) = &e.seat else { return Ok(()) };
        let s = n.seat(s).map_err(|m| at.error(m))?;
        let p = &st.players[s.index()];
        let name = n.seat_name(s);
        if let Some(want) = &e.special {
            let specials = &at.game.engine.rules.cards.specials;
            let id = |k: Option<u8>| k.map_or_else(|| "none".to_string(), |k| specials[k as usize].id.clone());
            let want = if want == "none" { "none".to_string() } else { id(Some(n.special(want).map_err(|m| at.error(m))? as u8)) };
            self.compare(here, &format!("{name}'s special card"), id(st.special_of(s)), want);
        }
        for (what, got, want) in [
            ("chests", p.chests, e.chests),
            ("rice", p.rice, e.rice),
            ("points", p.points, e.points),
            ("provinces", st.provinces_of(s).count() as i64, e.provinces.map(|x| x as i64)),
            ("supply", i64::from(p.supply), e.supply.map(i64::from)),
        ] {
            if let Some(w) = want {
                self.compare(here, &format!("{name} {what}"), got.to_string(), w.to_string());
            }
        }
        Ok(())
    }

    /// Who ranks first by the rules' standings.
    fn winner(&mut self, e: &Expect, at: &At) -> Result<(), String> {
        let Some(w) = &e.winner else { return Ok(()) };
        let standings = at.game.engine.standings(at.game.state()).map_err(|e| at.error(e))?;
        let won: Vec<&str> = standings.iter().filter(|(_, r)| *r == 1).map(|(s, _)| at.n.seat_name(*s)).collect();
        self.compare(at.here, "winner", won.join(","), w.clone());
        Ok(())
    }

    /// The transcript `log` against its golden file beside the scenario
    /// (written or rewritten with `--update`).
    fn golden(&mut self, e: &Expect, at: &At, log: &str) -> Result<(), String> {
        let Some(golden) = &e.transcript else { return Ok(()) };
        let here = at.here;
        // A golden transcript lives beside its scenario, never elsewhere.
        let gpath = crate::files::inside(self.path.parent().unwrap_or(Path::new(".")), golden).map_err(|e| format!("{here}: transcript: {e}"))?;
        let text = format!("# {}\n# ruleset: {}\n{log}", self.sc.description.trim(), at.game.engine.rules.ruleset_name());
        match crate::files::read_text(&gpath) {
            Ok(old) if old == text => {}
            Ok(old) if !self.update => {
                self.report.failures.push(format!("{here}: transcript differs from {}:\n{}", gpath.display(), first_difference(&old, &text, 3)))
            }
            Err(_) if !self.update => {
                self.report.failures.push(format!("{here}: golden transcript {} is missing (run with --update to write it)", gpath.display()))
            }
            _ => {
                crate::files::write_atomic(&gpath, text.as_bytes()).map_err(|e| at.error(e))?;
                self.report.updated.push(gpath);
            }
        }
        Ok(())
    }
}

/// Where an expectation is checked: its place in the file, the game and
/// the game's notation.
struct At<'a> {
    here: &'a str,
    game: &'a Game,
    n: crate::play::Notation<'a>,
}

impl At<'_> {
    /// An expectation that does not read, at its place.
    fn error(&self, m: impl std::fmt::Display) -> String {
        format!("{}: {m}", self.here)
    }
}

/// Where two texts differ, line by line (the `similar` crate's diff): the
/// first changed region with `context` unchanged lines around it, `-` for
/// a line only the old text has and `+` for one only the new text has.
/// Only real changes are marked: one changed line is one -/+ pair.
pub fn first_difference(old: &str, new: &str, context: usize) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let groups = diff.grouped_ops(context);
    let Some(first) = groups.first() else {
        return "  (no difference)".into();
    };
    let mut out = String::new();
    let mut at = None;
    for op in first {
        for change in diff.iter_changes(op) {
            let mark = match change.tag() {
                similar::ChangeTag::Equal => "   ",
                similar::ChangeTag::Delete => "  -",
                similar::ChangeTag::Insert => "  +",
            };
            if change.tag() != similar::ChangeTag::Equal && at.is_none() {
                at = Some(change.old_index().or(change.new_index()).unwrap_or(0) + 1);
            }
            out.push_str(&format!("{mark} {}\n", change.value().trim_end_matches(['\n', '\r'])));
        }
    }
    let changed = diff.iter_all_changes().filter(|c| c.tag() != similar::ChangeTag::Equal).count();
    out.push_str(&format!(
        "  (first difference at line {}; {} changed region{}, {} line{} marked in all; {} lines before, {} after)",
        at.unwrap_or(1),
        groups.len(),
        if groups.len() == 1 { "" } else { "s" },
        changed,
        if changed == 1 { "" } else { "s" },
        old.lines().count(),
        new.lines().count()
    ));
    out
}
