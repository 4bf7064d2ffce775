use super::odds::{WinTable, win_table};
use super::{ActionKind, Bot, Forbid, action_kind};
use crate::core::*;
use crate::engine::{DRAFT_CARD, DRAFT_GROUP, Engine, TURN_SPACE};
use crate::rules::{Asked, AskedField};

/// A simple sensible heuristic: collect from the best provinces, attack
/// where it is clearly stronger, reinforce threatened borders, build when
/// it can afford to.
#[derive(Clone)]
pub struct Greedy {
    rng: GameRng,
    forbid: Forbid,
}

impl Greedy {
    pub fn new(seed: u64) -> Self {
        Greedy::restricted(seed, Forbid::default())
    }

    /// A greedy bot that never makes the forbidden kinds of play.
    pub fn restricted(seed: u64, forbid: Forbid) -> Self {
        Greedy { rng: GameRng::seeded(seed), forbid }
    }
}

/// The least chance of winning a battle at which greedy attacks.
const WIN_AT: f64 = 0.85;

/// Whether the pending question of `seat` moves armies into a province it
/// does not hold (the target, numbered from 1 as in Lua, is in the
/// question's data, which the asked seat sees).
pub(super) fn move_is_attack(engine: &Engine, view: &SeatView, seat: Seat) -> bool {
    move_data(engine, view, AskedField::To).is_some_and(|q| view.province(q).owner != Some(seat))
}

/// A whole number in the data of the seat's pending question, under the
/// name the pack gives the field (`bots.question_data`). The province
/// moved from, when the data names none, is the province of the action
/// the question was asked in (its context: a move's armies leave from
/// where the action is carried out).
pub(super) fn asked_int(engine: &Engine, view: &SeatView, f: AskedField) -> Option<i64> {
    let ask = view.ask()?;
    ask.data.int(engine.rules.bots.field(f)).or_else(|| match (f, ask.context) {
        (AskedField::From, Some(c)) => Some(c.province.number()),
        _ => None,
    })
}

/// A province named in the data of the seat's pending move question
/// (`from`, `to` as the pack names them; numbered from 1 as in Lua).
pub(super) fn move_data(engine: &Engine, view: &SeatView, f: AskedField) -> Option<ProvinceId> {
    asked_int(engine, view, f).and_then(|n| ProvinceId::from_number(n, view.provinces().len()))
}

/// Armies a move must leave behind (as the pack declares to the bots).
pub(super) fn left_behind(engine: &Engine) -> i64 {
    engine.rules.bots.armies_left_behind
}

/// Cubes defending `q` against `seat`: 0 for a neutral province (its
/// peasants are in the odds table).
pub(super) fn defence(view: &SeatView, seat: Seat, q: ProvinceId) -> i64 {
    let at = view.province(q);
    match at.owner {
        Some(o) if o != seat => i64::from(at.armies),
        _ => 0,
    }
}

/// The armies of other seats next to `p`.
pub(super) fn enemy_pressure(engine: &Engine, st: &SeatView, seat: Seat, p: ProvinceId) -> i64 {
    engine.rules.map.neighbours(p).filter(|&q| st.in_play(q)).map(|q| defence(st, seat, q)).sum()
}

/// The best attack from `p` with every army that may go, on a target not
/// in `taken`: (target, chance to win by the rules' tower odds).
fn best_attack(engine: &Engine, odds: &WinTable, st: &SeatView, seat: Seat, p: ProvinceId, taken: &[ProvinceId]) -> Option<(ProvinceId, f64)> {
    let movable = i64::from(st.province(p).armies) - left_behind(engine);
    if movable < 1 {
        return None;
    }
    engine
        .rules
        .map
        .neighbours(p)
        .filter(|&q| st.in_play(q) && st.province(q).owner != Some(seat) && !taken.contains(&q))
        .map(|q| (q, odds.win(movable, defence(st, seat, q))))
        .max_by(|x, y| better_target(engine, *x, *y))
}

/// Orders attack targets with their chances: the better chance, then the
/// richer province, then the lower index.
fn better_target(engine: &Engine, x: (ProvinceId, f64), y: (ProvinceId, f64)) -> std::cmp::Ordering {
    let tax = |p: ProvinceId| engine.rules.map.at(p).tax;
    x.1.total_cmp(&y.1).then(tax(x.0).cmp(&tax(y.0))).then(y.0.cmp(&x.0))
}

/// Rice the seat still lacks for the winter: what its provinces eat plus
/// what the year's last event takes (each face-up event is as likely to
/// be that one), less the rice it has. Negative: rice to spare.
fn rice_short(engine: &Engine, view: &SeatView, seat: Seat) -> i64 {
    let events = view.year_events();
    let loss = if events.is_empty() {
        0
    } else {
        let sum: i64 = events.iter().map(|&e| engine.rules.cards.events[e as usize].rice_loss).sum();
        (sum + events.len() as i64 - 1) / events.len() as i64
    };
    let eat = engine.rules.rules.winter.rice_per_province * view.provinces_of(seat).count() as i64;
    eat + loss - view.rice(seat)
}

/// How many extra cubes to throw into a battle (a count question of the
/// pack's `bots.questions.extra_cubes`): the fewest whose chance, by the
/// rules' odds, is within a point of what throwing every allowed cube
/// gives, so a battle already won or lost costs no cubes. The question's
/// data says the side: the defender's carries the attacker's extra cubes
/// (`attacker_extra`); the attacked province is `to`, the attacking
/// armies `armies` (as `bots.question_data` names them).
pub(super) fn extra_cubes(engine: &Engine, view: &SeatView, seat: Seat, options: &[Choice]) -> Choice {
    let counts: Vec<i64> = options.iter().filter_map(|c| if let Choice::Count(n) = c { Some(i64::from(*n)) } else { None }).collect();
    let (Some(to), Some(n), Some(most)) = (move_data(engine, view, AskedField::To), asked_int(engine, view, AskedField::Armies), counts.iter().copied().max())
    else {
        return *options.iter().max().unwrap();
    };
    let (odds, xa) = (win_table(engine), asked_int(engine, view, AskedField::AttackerExtra));
    let chance = |k: i64| -> f64 {
        match xa {
            // Defending: the attacker's armies and extra cubes against ours.
            Some(xa) => 1.0 - odds.win(n + xa, i64::from(view.province(to).armies) + k),
            None => odds.win(n + k, defence(view, seat, to)),
        }
    };
    let best = chance(most);
    let k = counts.iter().copied().filter(|&k| chance(k) >= best - 0.01).min().unwrap_or(most);
    Choice::Count(k as u32)
}

impl Bot for Greedy {
    fn boxed_clone(&self) -> Box<dyn Bot> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "greedy"
    }

    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: Seat) -> Plan {
        let n = engine.rules.cards.actions.len();
        let mut slots = vec![None; n];
        let mine: Vec<ProvinceId> = view.provinces_of(seat).collect();
        let mut used: Vec<ProvinceId> = Vec::new();
        let my_chests = view.chests(seat);
        let map = &engine.rules.map;
        let pick = |slots: &mut Vec<Option<Card>>, used: &mut Vec<ProvinceId>, a: usize, p: Option<ProvinceId>| {
            if let Some(p) = p {
                slots[a] = Some(Card::Province(p));
                used.push(p);
            }
        };
        let kinds: Vec<ActionKind> = (0..n).map(|a| action_kind(engine, a)).collect();
        let bid = if my_chests >= 10 {
            Some(Card::Chest(2))
        } else if my_chests >= 5 {
            Some(Card::Chest(1))
        } else {
            Some(Card::Chest(0))
        };
        let bid = bid.filter(|c| matches!(c, Card::Chest(v) if engine.rules.rules.components.chest_cards.contains(&i64::from(*v))));
        // Income first: it pays for the rest.
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::Taxes {
                let p = mine.iter().copied().filter(|p| !used.contains(p) && view.province(*p).unrest == 0).max_by_key(|&p| (map.at(p).tax, p));
                pick(&mut slots, &mut used, a, p);
            }
        }
        // Rice, as much as the winter will ask for.
        let mut short = rice_short(engine, view, seat);
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::Rice && short > 0 {
                let p = mine.iter().copied().filter(|p| !used.contains(p) && view.province(*p).unrest == 0).max_by_key(|&p| (map.at(p).rice, p));
                if let Some(p) = p {
                    short -= i64::from(map.at(p).rice);
                }
                pick(&mut slots, &mut used, a, p);
            }
        }
        // Attacks it can win, each on another target.
        let mut targets: Vec<ProvinceId> = Vec::new();
        let odds = win_table(engine);
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::MoveAttack && !self.forbid.attack {
                let best = mine
                    .iter()
                    .copied()
                    .filter(|p| !used.contains(p))
                    .filter_map(|p| best_attack(engine, &odds, view, seat, p, &targets).map(|(q, w)| (p, q, w)))
                    .filter(|&(_, _, w)| w >= WIN_AT)
                    .max_by(|x, y| x.2.total_cmp(&y.2).then(x.0.cmp(&y.0)));
                if let Some((_, q, _)) = best {
                    targets.push(q);
                }
                pick(&mut slots, &mut used, a, best.map(|b| b.0));
            }
        }
        // The enemy pressure on each of `mine` (the view does not change
        // while planning): worked out once, for every deploy and build.
        let pressure = std::cell::OnceCell::new();
        let pressure = || pressure.get_or_init(|| mine.iter().map(|&p| enemy_pressure(engine, view, seat, p)).collect::<Vec<i64>>());
        for (a, k) in kinds.iter().enumerate() {
            if matches!(k, ActionKind::Deploy | ActionKind::DeployMove) && view.supply(seat) >= 6 {
                let pressure = pressure();
                let i = (0..mine.len()).filter(|&i| !used.contains(&mine[i])).max_by_key(|&i| (pressure[i], mine[i]));
                pick(&mut slots, &mut used, a, i.map(|i| mine[i]));
            }
        }
        for (a, k) in kinds.iter().enumerate() {
            let ActionKind::Build(kind) = *k else { continue };
            if self.forbid.build || view.buildings()[kind] == 0 {
                continue;
            }
            let pressure = pressure();
            let i = (0..mine.len())
                .filter(|&i| {
                    let p = mine[i];
                    !used.contains(&p) && !view.province(p).has(kind) && view.province(p).building_count() < map.at(p).spaces
                })
                .max_by_key(|&i| (i64::from(view.province(mine[i]).armies) - pressure[i], mine[i]));
            pick(&mut slots, &mut used, a, i.map(|i| mine[i]));
        }
        let mut plan = Plan { slots, bid };
        super::comply(engine, view, seat, &mut plan, self.forbid);
        plan
    }

    fn choose(&mut self, engine: &Engine, view: &SeatView, seat: Seat, kind: &str, options: &[Choice]) -> Choice {
        let provinces: Vec<ProvinceId> = options.iter().filter_map(|c| if let Choice::Province(p) = c { Some(*p) } else { None }).collect();
        // The extra cubes the cards allow from its supply: as many as
        // raise its chance in the battle by the rules' odds.
        let asked = engine.rules.bots.asked(kind);
        if asked == Some(Asked::ExtraCubes) {
            return extra_cubes(engine, view, seat, options);
        }
        match (asked, kind) {
            (Some(Asked::MoveTarget), _) if !provinces.is_empty() => {
                // An attack it likely wins (the best chance, then the richest
                // province), else reinforce its most threatened province,
                // else the attack with the best chance.
                let own = |q: &ProvinceId| view.province(*q).owner == Some(seat);
                let attack_ok = !self.forbid.attack || !provinces.iter().any(own);
                let movable = move_data(engine, view, AskedField::From).map_or(1, |p| i64::from(view.province(p).armies) - left_behind(engine));
                let odds = win_table(engine);
                let enemy = provinces
                    .iter()
                    .copied()
                    .filter(|q| attack_ok && !own(q))
                    .map(|q| (q, odds.win(movable, defence(view, seat, q))))
                    .max_by(|x, y| better_target(engine, *x, *y));
                let reinforce = provinces.iter().copied().filter(own).max_by_key(|&q| (enemy_pressure(engine, view, seat, q), q));
                let p = match (enemy, reinforce) {
                    (Some((q, w)), _) if w >= WIN_AT => q,
                    (_, Some(q)) => q,
                    (Some((q, _)), None) => q,
                    (None, None) => provinces[0],
                };
                Choice::Province(p)
            }
            // Into its own province, or an attack worth making: every army
            // that may go; a hopeless attack it must make: as few as it may.
            (Some(Asked::MoveCount), _) => {
                let to = move_data(engine, view, AskedField::To);
                let attack = move_is_attack(engine, view, seat);
                let most = options.iter().filter_map(|c| if let Choice::Count(n) = c { Some(i64::from(*n)) } else { None }).max().unwrap_or(1);
                let worth = to.is_some_and(|q| win_table(engine).win(most, defence(view, seat, q)) >= WIN_AT);
                if attack && (self.forbid.attack || !worth) { *options.iter().min().unwrap() } else { *options.iter().max().unwrap() }
            }
            (Some(Asked::DeployMove), _) => {
                if options.contains(&Choice::Pass) {
                    Choice::Pass
                } else {
                    options[0]
                }
            }
            (_, TURN_SPACE) => *options.iter().min().unwrap(),
            // Draft: the richest open card, then the biggest group.
            (_, DRAFT_CARD) => options
                .iter()
                .copied()
                .max_by_key(|c| match c {
                    Choice::Province(p) => {
                        let pr = engine.rules.map.at(*p);
                        i64::from(pr.tax + pr.rice) * 100 - p.index() as i64
                    }
                    // A hidden card is worth about the average province.
                    Choice::Deck => 780,
                    _ => 0,
                })
                .unwrap(),
            (_, DRAFT_GROUP) => *options.iter().max().unwrap(),
            _ => options[self.rng.below(options.len() as u32) as usize],
        }
    }
}
