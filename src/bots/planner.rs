//! `planner`: a fast rule-aware player. It looks one step ahead with the
//! rules themselves: each action it may plan is carried out by the pack's
//! `perform` handler on a copy of its seat's view, and the result is
//! valued by `value::Valuer` (the pack's scoring run on the copy, holdings
//! in the pack's terms). It then takes the best actions (one province card
//! each, one target per attack), keeps those it can pay for with the costs
//! paid in the order of the action row, bids by what turn order is worth
//! to that plan (the specials on the turn-order spaces, each tried on the
//! plan through the rules' handlers) and answers questions the same way.
//! Battles are not thrown in the lookahead: an attack is valued by its
//! chance (the rules' tower and battle rule, `odds`) times what taking the
//! province is worth by the scoring. See docs/bots.md.

use std::cell::RefCell;

use super::greedy::{defence, enemy_pressure, left_behind, move_data};
use super::mcts::Quiet;
use super::odds::win_table;
use super::value::{Valuer, Weights, scoring_is_regional, scoring_reads_only_board};
use super::{ActionKind, Bot, Forbid, Greedy, action_kind, feasible};
use crate::core::*;
use crate::engine::{Engine, TURN_SPACE};
use crate::rules::{Asked, AskedField};
use crate::script::Reads;

#[derive(Clone)]
pub struct Planner {
    forbid: Forbid,
    weights: Weights,
    /// Answers the questions the planner leaves to greedy (the draft,
    /// the order of revolts).
    greedy: Greedy,
    /// The worth of each special card on the turn-order spaces to the plan
    /// made for the round (year, season), by space: what it chooses by.
    spaces: Option<((u8, u8), Vec<f64>)>,
}

/// Provinces a build card is tried in first (each costs a call of the
/// rules' handler and one of its scoring); other cards are tried in their
/// best one first. A card that lost every province it was tried in to
/// other cards is tried in one more, until it has one: a plan puts one
/// province card on each action, and cards that rank provinces alike (the
/// three deploys, the three builds, collecting) want the same ones
/// (docs/bots.md, "planner").
const TRIED: usize = 2;
/// Attacks valued per plan (the likeliest to win; each from the chance
/// `Weights::chance` up).
const ATTACKS_TRIED: usize = 4;

thread_local! {
    /// Positions of earlier plans' lookaheads, kept for their lists: a
    /// lookahead's position is copied into one of them (`clone_from`, which
    /// reuses every list) instead of into a new clone (which allocates each
    /// anew). What a plan decides does not depend on them.
    static SPARE: RefCell<Vec<GameState>> = const { RefCell::new(Vec::new()) };
}
/// At most this many are kept (a plan looks at about fifteen).
const SPARE_MAX: usize = 64;

/// One action the plan may take.
#[derive(Clone, Copy, Debug)]
struct Option_ {
    gain: f64,
    action: usize,
    province: ProvinceId,
    /// The province attacked (move/attack).
    target: Option<ProvinceId>,
    /// War chests it changes (negative: its cost).
    chests: i64,
    /// Its lookahead's position in `Options::after` (attacks have none).
    after: Option<usize>,
    /// Its province's rank among those tried for the card (0: the most
    /// promising): breaks ties of gain.
    rank: usize,
    /// What its lookahead read that a special card can change (`Reads::specials`).
    reads: Reads,
}

/// The actions the plan may take and the position each leads to.
struct Options {
    list: Vec<Option_>,
    after: Vec<GameState>,
    /// Per action card: the provinces worth trying, best first, and how
    /// many of them have been tried.
    cands: Vec<(Vec<ProvinceId>, usize)>,
}

impl Planner {
    pub fn new(seed: u64) -> Planner {
        Planner::restricted(seed, Forbid::default())
    }

    pub fn restricted(seed: u64, forbid: Forbid) -> Planner {
        Planner { forbid, weights: Weights::default(), greedy: Greedy::restricted(seed, forbid), spaces: None }
    }

    /// A planner valuing positions with other weights.
    pub fn with_weights(seed: u64, forbid: Forbid, weights: Weights) -> Planner {
        Planner { weights, ..Planner::restricted(seed, forbid) }
    }
}

/// Whether a lookahead changed nothing (the rules skipped or voided the
/// action) and asked nothing.
fn unchanged(before: &GameState, after: &GameState) -> bool {
    after.ask.is_none() && before.players == after.players && before.provinces == after.provinces && before.buildings == after.buildings
}

/// The position the seat plans from: its view, no question pending, every
/// seat with an empty plan (the others' plans are secret).
fn planning_base(engine: &Engine, view: &SeatView) -> GameState {
    let mut base = view.state().clone();
    base.ask = None;
    let n = engine.rules.cards.actions.len();
    for p in base.players.iter_mut() {
        p.plan = Some(Plan { slots: vec![None; n], bid: None });
    }
    base
}

/// The provinces worth trying for an action of `kind`, all of them, best first: the
/// richest by the map for collecting (the rules' handler then says what
/// it yields), the most pressed for deploying, the best defended for
/// building.
fn candidates(engine: &Engine, view: &SeatView, seat: Seat, a: usize, kind: ActionKind, free: &[ProvinceId]) -> Vec<ProvinceId> {
    let map = &engine.rules.map;
    let chests = view.chests(seat);
    let mut c: Vec<ProvinceId> = free.iter().copied().filter(|&p| feasible(engine, view, seat, a, kind, p, chests)).collect();
    let key = |p: ProvinceId| -> i64 {
        let at = view.province(p);
        match kind {
            ActionKind::Taxes => i64::from(map.at(p).tax),
            ActionKind::Rice => i64::from(map.at(p).rice),
            ActionKind::Deploy | ActionKind::DeployMove => enemy_pressure(engine, view, seat, p) - i64::from(at.armies),
            _ => i64::from(at.armies) - enemy_pressure(engine, view, seat, p),
        }
    };
    // Collecting where there is unrest starts a revolt: not a lookahead.
    if matches!(kind, ActionKind::Taxes | ActionKind::Rice) {
        c.retain(|&p| view.province(p).unrest == 0);
    }
    // Each key once: pressure sums the odds of every enemy neighbour.
    c.sort_by_cached_key(|&p| (std::cmp::Reverse(key(p)), p));
    c
}

/// Scratch positions and the scoring of the position planned from.
struct Look<'a> {
    base: &'a GameState,
    now0: Vec<i64>,
    v0: f64,
    scratch: GameState,
    events: Vec<Event>,
    /// What the last `act` read of the state (`Reads`).
    reads: Reads,
}

impl<'a> Look<'a> {
    fn new(engine: &Engine, val: &mut Valuer, base: &'a GameState, seat: Seat) -> Look<'a> {
        let board_only = scoring_reads_only_board(engine, val, base);
        val.board_only = board_only;
        val.regional = board_only && scoring_is_regional(engine, val, base);
        let now0 = val.score_base(engine, base);
        let v0 = val.value_with(engine, base, seat, &now0);
        Look { base, now0, v0, scratch: base.clone(), events: Vec::new(), reads: Reads::default() }
    }

    /// The value of `st` (a position reached from the base): the rules'
    /// scoring runs again only for a board not seen before (or a change
    /// of one region's board not seen before, where it scores regions on
    /// their own), or always when it reads more than the board.
    fn value(&self, engine: &Engine, val: &mut Valuer, st: &GameState, seat: Seat) -> f64 {
        let now = val.score_from(engine, self.base, &self.now0, st);
        val.value_with(engine, st, seat, &now)
    }

    /// Carries out action `a` in `p` for `seat` on a copy of the base (the
    /// turn-order space `space` held) by the rules' `perform` handler; the
    /// copy is `self.scratch`. False when the rules skip or void it.
    fn act(&mut self, engine: &Engine, seat: Seat, space: Option<u8>, a: usize, p: ProvinceId) -> bool {
        self.scratch.clone_from(self.base);
        self.scratch.players[seat.index()].space = space;
        self.events.clear();
        let rt = engine.runtime();
        rt.take_reads();
        let done = rt.call_action(&mut self.scratch, &mut self.events, a, seat, p);
        self.reads = rt.take_reads();
        if done.is_err() {
            return false;
        }
        self.scratch.ask = None;
        self.scratch.players[seat.index()].space = self.base.players[seat.index()].space;
        !unchanged(self.base, &self.scratch)
    }

    /// What taking `to` from `from` with `moved` armies is worth, by its
    /// chance `p` to win: the position with the province taken (the armies
    /// moved standing in it) against the one with the armies lost.
    #[allow(clippy::too_many_arguments)]
    fn attack(&mut self, engine: &Engine, val: &mut Valuer, seat: Seat, from: ProvinceId, to: ProvinceId, moved: i64, p: f64) -> f64 {
        let moved = moved.clamp(0, i64::from(self.base.provinces[from.index()].armies)) as u16;
        self.scratch.clone_from(self.base);
        self.scratch.provinces[from.index()].armies -= moved;
        self.scratch.players[seat.index()].supply += moved;
        let loss = val.value_with(engine, &self.scratch, seat, &self.now0) - self.v0;
        self.scratch.players[seat.index()].supply -= moved;
        let at = &mut self.scratch.provinces[to.index()];
        at.owner = Some(seat);
        at.armies = moved;
        let now = val.score_from(engine, self.base, &self.now0, &self.scratch);
        let win = val.value_with(engine, &self.scratch, seat, &now) - self.v0;
        p * win + (1.0 - p) * loss
    }
}

impl Planner {
    /// The actions worth planning, each with its gain by the lookahead:
    /// every card tried in its best province (a build in `TRIED`).
    fn options(&self, engine: &Engine, view: &SeatView, seat: Seat, val: &mut Valuer, look: &mut Look) -> Options {
        let mine: Vec<ProvinceId> = look.base.provinces_of(seat).collect();
        let n = engine.rules.cards.actions.len();
        let mut out = Options { list: Vec::new(), after: Vec::new(), cands: vec![(Vec::new(), 0); n] };
        let mut attacks: Option<Vec<(ProvinceId, ProvinceId, f64)>> = None;
        for a in 0..n {
            let kind = action_kind(engine, a);
            if self.forbid.action(kind) || kind == ActionKind::Other {
                continue;
            }
            if kind == ActionKind::MoveAttack {
                let found = attacks.get_or_insert_with(|| attacks_worth_trying(engine, view, seat, val, look, &mine));
                out.list.extend(found.iter().map(|&(p, q, gain)| Option_ {
                    gain,
                    action: a,
                    province: p,
                    target: Some(q),
                    chests: 0,
                    after: None,
                    rank: 0,
                    reads: Reads::default(),
                }));
                continue;
            }
            out.cands[a].0 = candidates(engine, view, seat, a, kind, &mine);
            // A building is worth what it adds where it stands (a region's
            // majority); what the others bring differs little by province.
            let first = if matches!(kind, ActionKind::Build(_)) { TRIED } else { 1 };
            Planner::try_more(engine, seat, val, look, &mut out, a, first);
        }
        out
    }

    /// Tries card `a` in up to `more` provinces of its list not tried yet;
    /// false when none was left.
    fn try_more(engine: &Engine, seat: Seat, val: &mut Valuer, look: &mut Look, out: &mut Options, a: usize, more: usize) -> bool {
        let me = seat.index();
        let (list, tried) = &mut out.cands[a];
        let from = *tried;
        let to = (from + more).min(list.len());
        *tried = to;
        for rank in from..to {
            let p = out.cands[a].0[rank];
            if !look.act(engine, seat, None, a, p) {
                continue;
            }
            let gain = look.value(engine, val, &look.scratch, seat) - look.v0;
            let chests = look.scratch.players[me].chests - look.base.players[me].chests;
            out.list.push(Option_ { gain, action: a, province: p, target: None, chests, after: Some(out.after.len()), rank, reads: look.reads });
            let kept = match SPARE.with_borrow_mut(Vec::pop) {
                Some(mut spare) => {
                    spare.clone_from(&look.scratch);
                    spare
                }
                None => look.scratch.clone(),
            };
            out.after.push(kept);
        }
        to > from
    }

    /// The best options (`matching`), each card that lost every province
    /// it was tried in to other cards tried in one more, until none is
    /// left so.
    fn widened(engine: &Engine, seat: Seat, val: &mut Valuer, look: &mut Look, out: &mut Options) -> Vec<Option_> {
        loop {
            let chosen = Planner::matching(out.list.clone());
            let starved: Vec<usize> = (0..out.cands.len())
                .filter(|&a| !chosen.iter().any(|c| c.action == a) && out.list.iter().any(|o| o.action == a && o.target.is_none() && o.gain > 1e-9))
                .collect();
            let mut widened = false;
            for a in starved {
                widened |= Planner::try_more(engine, seat, val, look, out, a, 1);
            }
            if !widened {
                return chosen;
            }
        }
    }

    /// The best options with one province card and one target each.
    fn matching(mut opts: Vec<Option_>) -> Vec<Option_> {
        opts.sort_by(|x, y| y.gain.total_cmp(&x.gain).then(x.rank.cmp(&y.rank)).then(x.action.cmp(&y.action)).then(x.province.cmp(&y.province)));
        let mut chosen: Vec<Option_> = Vec::new();
        for o in opts {
            if o.gain <= 1e-9 {
                break;
            }
            let clash = chosen.iter().any(|c| c.action == o.action || c.province == o.province || (o.target.is_some() && c.target == o.target));
            if !clash {
                chosen.push(o);
            }
        }
        chosen
    }

    /// The chosen actions that can be paid for with `chests`: face-up
    /// cards in the row's order, face-down ones (order unknown) with their
    /// income first. Returns what stays and the gain dropped.
    fn payable(base: &GameState, chosen: &[Option_], chests: i64) -> (Vec<Option_>, f64) {
        let open = (base.actions_revealed as usize).min(base.action_row.len());
        let place = |a: usize| base.action_row.iter().position(|&r| r as usize == a).unwrap_or(usize::MAX);
        let mut order: Vec<&Option_> = chosen.iter().collect();
        order.sort_by_key(|o| {
            let at = place(o.action);
            if at < open { (0, at) } else { (if o.chests >= 0 { 1 } else { 2 }, at) }
        });
        let (mut running, mut kept, mut dropped) = (chests, Vec::new(), 0.0);
        for o in order {
            if o.chests < 0 && running + o.chests < 0 {
                dropped += o.gain;
                continue;
            }
            running += o.chests;
            kept.push(*o);
        }
        (kept, dropped)
    }

    /// The worth of each turn-order space to the plan: the gain its special
    /// card adds to the chosen actions it may touch (each carried out again
    /// by the rules' handler holding that space; a special whose effects
    /// name only other action cards, or hooks the action's lookahead never
    /// asked for, adds nothing). Spaces without a card add nothing.
    fn space_values(engine: &Engine, val: &mut Valuer, look: &mut Look, seat: Seat, chosen: &[Option_], after: &[GameState]) -> Vec<f64> {
        let row: Vec<&Option_> = chosen.iter().filter(|o| o.after.is_some()).collect();
        let specials = look.base.special_row.clone();
        specials
            .iter()
            .enumerate()
            .map(|(k, sp)| {
                let Some(sp) = sp else { return 0.0 };
                let effects = &engine.rules.cards.specials[*sp as usize].effects;
                let mut extra = 0.0;
                let rt = engine.runtime();
                for o in &row {
                    let id = engine.rules.cards.actions[o.action].id.as_str();
                    // Its lookahead, which asked for none of the special's
                    // hooks, runs alike holding it.
                    if !effects.iter().any(|e| (e.actions.is_empty() || e.actions.iter().any(|x| x == id)) && rt.consulted(o.reads, &e.hook)) {
                        continue;
                    }
                    let done = look.act(engine, seat, Some(k as u8), o.action, o.province);
                    let before = &after[o.after.unwrap_or(0)];
                    if !done {
                        extra -= o.gain;
                    } else if look.scratch != *before {
                        extra += look.value(engine, val, &look.scratch, seat) - look.v0 - o.gain;
                    }
                }
                extra
            })
            .collect()
    }

    /// The bid: the chest card that best trades what choosing first is
    /// worth (`spread`: the best space's worth over the mean, plus acting
    /// first) against the war chests it costs and the actions it would
    /// leave unpaid. The chance to choose first grows with the bid as the
    /// square root of its share of the highest card.
    fn bid(engine: &Engine, view: &SeatView, seat: Seat, base: &GameState, chosen: &[Option_], spread: f64, chest: f64) -> Option<Card> {
        let cards = &engine.rules.rules.components.chest_cards;
        let top = cards.iter().copied().max().unwrap_or(0).max(1) as f64;
        let chests = view.chests(seat);
        cards
            .iter()
            .copied()
            .filter(|&c| c >= 0 && c <= chests && engine.can_bid(view, seat, Card::Chest(c as u8)))
            .map(|c| {
                let (_, dropped) = Planner::payable(base, chosen, chests - c);
                (c, spread * (c as f64 / top).sqrt() - chest * c as f64 - dropped)
            })
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
            .map(|(c, _)| Card::Chest(c as u8))
    }
}

/// Attacks worth trying: (from, target, gain), the likeliest to win
/// first, valued by `Look::attack`.
fn attacks_worth_trying(
    engine: &Engine,
    view: &SeatView,
    seat: Seat,
    val: &mut Valuer,
    look: &mut Look,
    mine: &[ProvinceId],
) -> Vec<(ProvinceId, ProvinceId, f64)> {
    let odds = win_table(engine);
    let mut tries: Vec<(ProvinceId, ProvinceId, i64, f64)> = Vec::new();
    for &p in mine {
        let movable = i64::from(view.province(p).armies) - left_behind(engine);
        if movable < 1 {
            continue;
        }
        // Each province's likeliest attack (the richer target on a tie).
        let best = engine
            .rules
            .map
            .neighbours(p)
            .filter(|&q| view.in_play(q) && view.province(q).owner != Some(seat))
            .map(|q| (q, odds.win(movable, defence(view, seat, q))))
            .max_by(|x, y| x.1.total_cmp(&y.1).then(engine.rules.map.at(x.0).tax.cmp(&engine.rules.map.at(y.0).tax)).then(y.0.cmp(&x.0)));
        if let Some((q, w)) = best.filter(|b| b.1 >= val.weights.chance) {
            tries.push((p, q, movable, w));
        }
    }
    tries.sort_by(|x, y| y.3.total_cmp(&x.3).then(x.0.cmp(&y.0)));
    tries.truncate(ATTACKS_TRIED);
    tries.into_iter().map(|(p, q, m, w)| (p, q, look.attack(engine, val, seat, p, q, m, w))).filter(|t| t.2 > 0.0).collect()
}

impl Bot for Planner {
    fn boxed_clone(&self) -> Box<dyn Bot> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "planner"
    }

    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> Plan {
        self.plan_ranked(engine, view, seat).0
    }

    fn choose(&mut self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Choice {
        if options.len() == 1 {
            return options[0];
        }
        match (engine.rules.bots.asked(kind), kind) {
            (_, TURN_SPACE) => self.choose_space(view, options),
            (Some(Asked::MoveTarget), _) => self.choose_target(engine, view, seat, kind, options),
            (Some(Asked::MoveCount), _) => choose_count(engine, view, seat, options, self.weights.commit),
            (Some(Asked::DeployMove), _) => choose_deploy_move(engine, view, seat, options),
            _ => self.greedy.choose(engine, view, seat, kind, options),
        }
    }
}

impl Planner {
    /// Its plan, and the actions it tried but left out, best gain first
    /// (action, province): `mcts` searches among plans that take one of
    /// them instead (its candidates).
    pub(super) fn plan_ranked(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> (Plan, Vec<(usize, ProvinceId)>) {
        let _quiet = Quiet::new(engine);
        let mut val = Valuer::new(engine, self.weights);
        let base = planning_base(engine, view);
        let mut look = Look::new(engine, &mut val, &base, seat);
        let mut opts = self.options(engine, view, seat, &mut val, &mut look);
        let chosen = Planner::widened(engine, seat, &mut val, &mut look, &mut opts);
        let spaces = Planner::space_values(engine, &mut val, &mut look, seat, &chosen, &opts.after);
        let offered: Vec<f64> = base.special_row.iter().zip(&spaces).filter(|(s, _)| s.is_some()).map(|(_, v)| *v).collect();
        let spread = if offered.is_empty() {
            0.0
        } else {
            offered.iter().copied().fold(f64::NEG_INFINITY, f64::max) - offered.iter().sum::<f64>() / offered.len() as f64
        };
        // Acting first is worth most to a plan that attacks.
        let attacks = chosen.iter().filter(|o| o.target.is_some()).count() as f64;
        let spread = spread + self.weights.order * val.units.province * (1.0 + attacks);
        self.spaces = Some(((base.year, base.season), spaces));
        let bid = Planner::bid(engine, view, seat, &base, &chosen, spread, val.chest_value(&base));
        let paid = bid.map_or(0, |c| if let Card::Chest(v) = c { i64::from(v) } else { 0 });
        let (kept, _) = Planner::payable(&base, &chosen, view.chests(seat) - paid);
        let mut plan = Plan { slots: vec![None; engine.rules.cards.actions.len()], bid };
        for o in kept {
            plan.slots[o.action] = Some(Card::Province(o.province));
        }
        super::comply(engine, view, seat, &mut plan, self.forbid);
        let mut rest: Vec<&Option_> = opts.list.iter().filter(|o| o.gain > 1e-9 && plan.slots[o.action] != Some(Card::Province(o.province))).collect();
        rest.sort_by(|x, y| y.gain.total_cmp(&x.gain).then(x.rank.cmp(&y.rank)));
        let rest = rest.into_iter().map(|o| (o.action, o.province)).collect();
        SPARE.with_borrow_mut(|spare| {
            let room = SPARE_MAX.saturating_sub(spare.len());
            spare.extend(opts.after.drain(..).take(room));
        });
        (plan, rest)
    }
    /// The space whose special card is worth most to the round's plan
    /// (the earlier space on a tie); the first space without a valuation.
    fn choose_space(&self, view: &SeatView, options: &[Choice]) -> Choice {
        let st = view.state();
        let worth = |c: &Choice| -> f64 {
            match (c, &self.spaces) {
                (Choice::Space(k), Some((round, v))) if *round == (st.year, st.season) => v.get(*k as usize).copied().unwrap_or(f64::NEG_INFINITY),
                _ => 0.0,
            }
        };
        options.iter().copied().max_by(|x, y| worth(x).total_cmp(&worth(y)).then(y.cmp(x))).unwrap_or(options[0])
    }

    /// Where the armies go: the target with the best expected worth by the
    /// lookahead (its chance times what taking it brings), else its most
    /// threatened own province.
    fn choose_target(&mut self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Choice {
        let _quiet = Quiet::new(engine);
        let Some(from) = move_data(engine, view, AskedField::From) else { return self.greedy.choose(engine, view, seat, kind, options) };
        let mut val = Valuer::new(engine, self.weights);
        let base = planning_base(engine, view);
        let mut look = Look::new(engine, &mut val, &base, seat);
        let movable = i64::from(view.province(from).armies) - left_behind(engine);
        let odds = win_table(engine);
        let mut best: Option<(f64, Choice)> = None;
        for &c in options {
            let Choice::Province(q) = c else { continue };
            let own = view.province(q).owner == Some(seat);
            let gain = if own {
                // Reinforcing is worth what it adds where the enemy presses.
                0.01 * (enemy_pressure(engine, view, seat, q) - enemy_pressure(engine, view, seat, from)) as f64
            } else if self.forbid.attack {
                continue;
            } else {
                let w = odds.win(movable, defence(view, seat, q));
                look.attack(engine, &mut val, seat, from, q, movable, w)
            };
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, c));
            }
        }
        match best {
            Some((_, c)) => c,
            None => self.greedy.choose(engine, view, seat, kind, options),
        }
    }
}

/// How many armies go: all into its own province or an attack with a fair
/// chance (at least `commit`, `Weights::commit`), as few as it may into an
/// attack it must make without one.
fn choose_count(engine: &Engine, view: &SeatView, seat: Seat, options: &[Choice], commit: f64) -> Choice {
    let most = options.iter().filter_map(|c| if let Choice::Count(n) = c { Some(i64::from(*n)) } else { None }).max().unwrap_or(1);
    let attack = super::greedy::move_is_attack(engine, view, seat);
    let to = move_data(engine, view, AskedField::To);
    let fair = to.is_some_and(|q| win_table(engine).win(most, defence(view, seat, q)) >= commit);
    if attack && !fair { *options.iter().min().unwrap() } else { *options.iter().max().unwrap() }
}

/// The deployed army moves on to the own neighbour the enemy presses most
/// beyond its armies, if that is pressed more than where it stands.
fn choose_deploy_move(engine: &Engine, view: &SeatView, seat: Seat, options: &[Choice]) -> Choice {
    let need = |p: ProvinceId| enemy_pressure(engine, view, seat, p) - i64::from(view.province(p).armies);
    let here = move_data(engine, view, AskedField::From).map_or(i64::MIN, need);
    let best = options.iter().copied().filter_map(|c| if let Choice::Province(p) = c { Some((need(p), p)) } else { None }).max();
    match best {
        Some((n, p)) if n > here => Choice::Province(p),
        _ if options.contains(&Choice::Pass) => Choice::Pass,
        _ => options[0],
    }
}
