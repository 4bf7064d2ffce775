//! What a seat may see, made in one place (boardgame.io's `playerView`).
//!
//! `GameState::view` is the state as a seat knows it, `GameState::face_up`
//! says which of a seat's planned cards are turned up, and `may_read`
//! which lines of the log a seat reads. Every output a seat sees (the
//! REPL's views, option details, odds, forecasts and `lua`, the
//! timeline's log, history and replay reports) and every bot (through
//! `SeatView`) goes through them; nothing else decides what is secret.

use super::data::AskData;
use super::state::*;

impl GameState {
    /// What `viewer` may know; `None` is the god view: the state itself
    /// (the REPL's `view god`, saves). A seat's view hides
    ///
    /// - the tower's levels: its cubes all sit on the top level, so the
    ///   view holds how many of each colour are inside (every throw in and
    ///   out is seen) and not where; `seen_by` says the levels are unknown,
    ///   and whatever needs levels draws them from the contents
    ///   (`tower::sample_levels`);
    /// - other seats' plans but for the cards turned face up by now
    ///   (`face_up`): a face-down card or bid reads as an empty space;
    /// - the order of the face-down action cards, the event deck and the
    ///   draft deck (sorted), the random streams' seed;
    /// - the data and context of another seat's pending question.
    pub fn view(&self, viewer: Option<Seat>) -> GameState {
        let Some(seat) = viewer else { return self.clone() };
        let mut v = self.clone();
        v.seen_by = Some(seat);
        let round = (self.year, self.season);
        for (s, p) in v.players.iter_mut().enumerate() {
            let owner = Seat::new(s);
            if owner == seat {
                continue;
            }
            if let Some(plan) = &mut p.plan {
                for (a, slot) in plan.slots.iter_mut().enumerate() {
                    if !self.face_up(round, owner, Some(a)) {
                        *slot = None;
                    }
                }
                if !self.face_up(round, owner, None) {
                    plan.bid = None;
                }
            }
        }
        let contents = v.tower_contents();
        v.tower.iter_mut().for_each(|l| *l = Pile::default());
        if let Some(top) = v.tower.first_mut() {
            *top = contents;
        }
        let open = (v.actions_revealed as usize).min(v.action_row.len());
        v.action_row[open..].sort_unstable();
        v.event_deck.sort_unstable();
        if let Some(d) = &mut v.draft {
            d.deck.sort_unstable();
        }
        v.streams.hide();
        if let Some(ask) = &v.ask
            && ask.seat != seat
        {
            v.ask = Some(Ask { data: AskData::default(), context: None, ..ask.clone() });
        }
        v
    }

    /// Whether the tower's levels are known here: in the game itself, not
    /// in a seat's view (which holds only the contents by colour).
    pub fn levels_known(&self) -> bool {
        self.seen_by.is_none()
    }

    /// Whether `seat`'s card for `action` (`None`: its bid), placed in the
    /// round `round` (year, season), is face up in this position: every
    /// card of a past round is; in the round itself, the bid from the
    /// reveal on and an action's card once that action has come to the
    /// seat.
    pub fn face_up(&self, round: (u8, u8), seat: Seat, action: Option<usize>) -> bool {
        let now = (self.year, self.season);
        if now != round {
            return now > round;
        }
        match (self.phase, action) {
            (Phase::Planning | Phase::Reveal, _) | (Phase::ChooseSpace { .. }, Some(_)) => false,
            (Phase::ChooseSpace { .. } | Phase::Actions { .. }, None) => true,
            (Phase::Actions { card, turn }, Some(a)) => {
                let pos = self.action_row.iter().position(|&x| x as usize == a).unwrap_or(usize::MAX);
                let at = self.turn_order.iter().position(|&s| s == seat).unwrap_or(usize::MAX);
                pos < card as usize || (pos == card as usize && at < turn as usize)
            }
            _ => true,
        }
    }
}

/// Whether `viewer` (`None`: the god view) may read what is meant for
/// `only` (`None`: every seat; `Some(seat)`: that seat's secret): a line of
/// the log (its plan narrated at the reveal), its plan or draft in full,
/// what the options of its own question mean. Every output that shows a
/// seat's secret asks this.
pub fn may_read(viewer: Option<Seat>, only: Option<Seat>) -> bool {
    viewer.is_none() || only.is_none() || only == viewer
}

/// What one seat may know, borrowed from the state: bots decide from this.
/// The public parts (the board, supplies, counts) are read in place; the
/// seat's view (`GameState::view`) is made only if a bot asks for it.
pub struct SeatView<'a> {
    st: &'a GameState,
    seat: Seat,
    copy: std::cell::OnceCell<GameState>,
}

impl<'a> SeatView<'a> {
    pub fn new(st: &'a GameState, seat: Seat) -> SeatView<'a> {
        SeatView { st, seat, copy: std::cell::OnceCell::new() }
    }
    /// The seat whose view this is.
    pub fn seat(&self) -> Seat {
        self.seat
    }
    pub fn seats(&self) -> usize {
        self.st.seats()
    }
    pub fn provinces(&self) -> &'a [ProvinceState] {
        &self.st.provinces
    }
    pub fn province(&self, p: ProvinceId) -> &'a ProvinceState {
        &self.st.provinces[p.index()]
    }
    /// Whether a province is on the board in this game (player count).
    pub fn in_play(&self, p: ProvinceId) -> bool {
        self.st.in_play[p.index()]
    }
    /// Buildings in the supply, by kind.
    pub fn buildings(&self) -> &'a [u16] {
        &self.st.buildings
    }
    pub fn provinces_of(&self, seat: Seat) -> impl Iterator<Item = ProvinceId> + 'a {
        self.st.provinces_of(seat)
    }
    pub fn supply(&self, seat: Seat) -> u16 {
        self.st.players[seat.index()].supply
    }
    pub fn chests(&self, seat: Seat) -> i64 {
        self.st.players[seat.index()].chests
    }
    pub fn rice(&self, seat: Seat) -> i64 {
        self.st.players[seat.index()].rice
    }
    pub fn points(&self, seat: Seat) -> i64 {
        self.st.players[seat.index()].points
    }
    /// The year's face-up events not yet used.
    pub fn year_events(&self) -> &'a [u8] {
        &self.st.year_events
    }
    /// The question put to this seat, if one is.
    pub fn ask(&self) -> Option<&'a Ask> {
        self.st.ask.as_ref().filter(|a| a.seat == self.seat)
    }
    /// Everything the seat may know, as a state (`GameState::view`, made
    /// on first use).
    pub fn state(&self) -> &GameState {
        self.copy.get_or_init(|| self.st.view(Some(self.seat)))
    }
}

impl Holdings for SeatView<'_> {
    fn province_states(&self) -> &[ProvinceState] {
        self.st.provinces.as_slice()
    }
    fn chests_of(&self, seat: Seat) -> i64 {
        self.st.players[seat.index()].chests
    }
}
