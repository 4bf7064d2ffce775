use super::{ActionKind, Bot, Forbid, action_kind};
use crate::core::*;
use crate::engine::Engine;

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

/// Whether the pending question of `seat` moves armies into a province it
/// does not hold (the target, numbered from 1 as in Lua, is in the
/// question's data, which the asked seat sees).
pub(super) fn move_is_attack(view: &SeatView, seat: usize) -> bool {
    let st = view.state();
    let to = st.ask.as_ref().and_then(|a| a.data.get("to")).and_then(|v| v.as_u64()).and_then(|q| q.checked_sub(1));
    to.is_some_and(|q| st.provinces.get(q as usize).is_some_and(|p| p.owner != Some(seat as u8)))
}

fn enemy_pressure(engine: &Engine, st: &SeatView, seat: usize, p: usize) -> i64 {
    engine.rules.map.provinces[p]
        .neighbours
        .iter()
        .filter(|&&q| st.in_play()[q])
        .map(|&q| match st.provinces()[q].owner {
            Some(o) if o as usize != seat => i64::from(st.provinces()[q].armies),
            _ => 0,
        })
        .sum()
}

/// The best attack from `p`: (target, margin) where margin = movable - defence.
fn best_attack(engine: &Engine, st: &SeatView, seat: usize, p: usize) -> Option<(usize, i64)> {
    let movable = i64::from(st.provinces()[p].armies) - 1;
    engine.rules.map.provinces[p]
        .neighbours
        .iter()
        .filter(|&&q| st.in_play()[q] && st.provinces()[q].owner != Some(seat as u8))
        .map(|&q| {
            let def = if st.provinces()[q].owner.is_none() { 1 } else { i64::from(st.provinces()[q].armies) };
            (q, movable - def)
        })
        .max_by_key(|&(q, m)| (m, engine.rules.map.provinces[q].tax, std::cmp::Reverse(q)))
}

impl Bot for Greedy {
    fn boxed_clone(&self) -> Box<dyn Bot> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "greedy"
    }

    fn plan(&mut self, engine: &Engine, view: &SeatView, seat: usize) -> Plan {
        let n = engine.rules.cards.actions.len();
        let mut slots = vec![None; n];
        let mine: Vec<usize> = view.provinces_of(seat).collect();
        let mut used: Vec<usize> = Vec::new();
        let (my_chests, my_rice, my_supply) = (view.chests(seat), view.rice(seat), view.supply(seat));
        let mut budget = my_chests;
        let map = &engine.rules.map;
        let pick = |slots: &mut Vec<Option<Card>>, used: &mut Vec<usize>, a: usize, p: Option<usize>| {
            if let Some(p) = p {
                slots[a] = Some(Card::Province(p as u16));
                used.push(p);
            }
        };
        let kinds: Vec<ActionKind> = (0..n).map(|a| action_kind(engine, a)).collect();
        // Income first: it pays for the rest.
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::Taxes {
                let p = mine.iter().copied().filter(|p| !used.contains(p) && view.provinces()[*p].unrest == 0).max_by_key(|&p| (map.provinces[p].tax, p));
                if let Some(p) = p {
                    budget += i64::from(map.provinces[p].tax);
                }
                pick(&mut slots, &mut used, a, p);
            }
        }
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::Rice && my_rice < mine.len() as i64 + 3 {
                let p = mine.iter().copied().filter(|p| !used.contains(p) && view.provinces()[*p].unrest == 0).max_by_key(|&p| (map.provinces[p].rice, p));
                pick(&mut slots, &mut used, a, p);
            }
        }
        for (a, k) in kinds.iter().enumerate() {
            if *k == ActionKind::MoveAttack && !self.forbid.attack {
                let p = mine
                    .iter()
                    .copied()
                    .filter(|p| !used.contains(p))
                    .filter_map(|p| best_attack(engine, view, seat, p).map(|(_, m)| (p, m)))
                    .filter(|&(_, m)| m >= 2)
                    .max_by_key(|&(p, m)| (m, p))
                    .map(|(p, _)| p);
                pick(&mut slots, &mut used, a, p);
            }
        }
        for (a, k) in kinds.iter().enumerate() {
            let cost = engine.rules.cards.actions[a].cost;
            if matches!(k, ActionKind::Deploy | ActionKind::DeployMove) && budget > cost && my_supply >= 6 {
                let p = mine.iter().copied().filter(|p| !used.contains(p)).max_by_key(|&p| (enemy_pressure(engine, view, seat, p), p));
                if p.is_some() {
                    budget -= cost;
                }
                pick(&mut slots, &mut used, a, p);
            }
        }
        for (a, k) in kinds.iter().enumerate() {
            let ActionKind::Build(kind) = *k else { continue };
            if self.forbid.build {
                continue;
            }
            let cost = engine.rules.cards.actions[a].cost;
            if budget < cost + 2 || view.buildings()[kind] == 0 {
                continue;
            }
            let p = mine
                .iter()
                .copied()
                .filter(|&p| !used.contains(&p) && !view.provinces()[p].has(kind) && view.provinces()[p].building_count() < map.provinces[p].spaces)
                .max_by_key(|&p| (i64::from(view.provinces()[p].armies) - enemy_pressure(engine, view, seat, p), p));
            if p.is_some() {
                budget -= cost;
            }
            pick(&mut slots, &mut used, a, p);
        }
        let bid = if my_chests >= 10 {
            Some(Card::Chest(2))
        } else if my_chests >= 5 {
            Some(Card::Chest(1))
        } else {
            Some(Card::Chest(0))
        };
        let bid = bid.filter(|c| matches!(c, Card::Chest(v) if engine.rules.rules.components.chest_cards.contains(&i64::from(*v))));
        let mut plan = Plan { slots, bid };
        super::comply(engine, view, seat, &mut plan, self.forbid);
        plan
    }

    fn choose(&mut self, engine: &Engine, view: &SeatView, seat: usize, kind: &str, options: &[Choice]) -> Choice {
        let provinces: Vec<usize> = options.iter().filter_map(|c| if let Choice::Province(p) = c { Some(*p as usize) } else { None }).collect();
        match kind {
            "move_target" if !provinces.is_empty() => {
                // The weakest enemy or neutral target, else the most threatened own province.
                let own = |q: &usize| view.provinces()[*q].owner == Some(seat as u8);
                let attack_ok = !self.forbid.attack || !provinces.iter().any(own);
                let enemy = provinces.iter().copied().filter(|q| attack_ok && !own(q)).min_by_key(|&q| {
                    let def = if view.provinces()[q].owner.is_none() { 1 } else { i64::from(view.provinces()[q].armies) };
                    (def, std::cmp::Reverse(engine.rules.map.provinces[q].tax), q)
                });
                let p = enemy.unwrap_or_else(|| provinces.iter().copied().max_by_key(|&q| (enemy_pressure(engine, view, seat, q), q)).unwrap());
                Choice::Province(p as u16)
            }
            // A restricted bot forced into an attack sends as few as it may.
            "move_count" if self.forbid.attack && move_is_attack(view, seat) => *options.iter().min().unwrap(),
            "move_count" => *options.iter().max().unwrap(),
            "deploy_move" => {
                if options.contains(&Choice::Pass) {
                    Choice::Pass
                } else {
                    options[0]
                }
            }
            "turn_space" => *options.iter().min().unwrap(),
            // Draft: the richest open card, then the biggest group.
            "draft_card" => options
                .iter()
                .copied()
                .max_by_key(|c| match c {
                    Choice::Province(p) => {
                        let pr = &engine.rules.map.provinces[*p as usize];
                        i64::from(pr.tax + pr.rice) * 100 - i64::from(*p)
                    }
                    // A hidden card is worth about the average province.
                    Choice::Deck => 780,
                    _ => 0,
                })
                .unwrap(),
            "draft_group" => *options.iter().max().unwrap(),
            _ => options[self.rng.below(options.len() as u32) as usize],
        }
    }
}
