//! A scenario with B's PFC watchdog and the peer's storms: the stations run step by step from
//! one storm's start or end to the next, and each storm's story is read off the watchdog's
//! events: when the peer's pauses first held B, when the watchdog's hold began, when it found
//! the storm, what its action dropped, and when it restored the class.

use dataplane::sim::{EgressConfig, TwoStation, TwoStationConfig, TwoStationReport};
use dataplane::time::Picos;
use dataplane::watchdog::{self, Action, ClassConfig, WatchdogSetup, CLASSES, LINK_PAUSE};
use dataplane::wire::PRIORITIES;
use serde::Serialize;

use super::file::{ActionSpec, ClassSpec, ScenarioFile, WatchdogSpec, WATCHDOG_MS};
use super::ScenarioError;

/// What a scenario asks of B's transmit side: PFC at both ends, its egress, its watchdog, and
/// the peer's storms in time order.
#[derive(Debug, Clone)]
pub struct WatchPlan {
    pub pfc_enable: u8,
    pub egress: EgressConfig,
    pub watchdog: Option<WatchdogSetup>,
    pub storms: Vec<Storm>,
}

/// One storm of the peer: `class` (a priority, or [`LINK_PAUSE`]) held from `start` to `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Storm {
    pub class: usize,
    pub start: Picos,
    pub end: Picos,
}

/// One storm, as it went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StormResult {
    /// `priority N` or `link-pause`.
    pub class: String,
    /// The class's watchdog action (`none` without a watchdog or with it disabled).
    pub action: String,
    pub start_us: u64,
    pub end_us: u64,
    /// The class's configured detection time.
    pub detection_ms: u64,
    /// When the peer's first pause of the storm held B (applied at B).
    pub storm_began_ns: Option<u64>,
    /// When the watchdog's hold began: held paused with frames waiting and none leaving.
    pub hold_began_ns: Option<u64>,
    pub detected_ns: Option<u64>,
    /// Detected − hold began − detection time, picoseconds: the watchdog's own error.
    pub detection_error_ps: Option<i64>,
    /// Detected − storm began − detection time, picoseconds: adds the wait for the first frame
    /// to queue under the pause (at most one egress interval).
    pub after_storm_began_ps: Option<i64>,
    /// Frames of the class the watchdog discarded during the storm.
    pub frames_dropped: u64,
    /// Frames of the class (all priorities for the link pause) queued toward A just before the
    /// peer released it.
    pub queued_at_end: u64,
    pub restored_ns: Option<u64>,
}

/// `priority 3` or `link-pause`.
pub fn class_name(class: usize) -> String {
    if class == LINK_PAUSE {
        "link-pause".to_string()
    } else {
        format!("priority {class}")
    }
}

fn action_of(spec: ActionSpec) -> Action {
    match spec {
        ActionSpec::Drop => Action::Drop,
        ActionSpec::Forward => Action::Forward,
        ActionSpec::Alert => Action::Alert,
    }
}

/// The class a storm or a class section names: exactly one of `priority` and `link_pause`.
fn class_of(
    section: &'static str,
    priority: Option<u8>,
    link_pause: bool,
) -> Result<usize, ScenarioError> {
    match (priority, link_pause) {
        (Some(p), false) if p < 8 => Ok(usize::from(p)),
        (Some(p), false) => Err(ScenarioError::Priority(p)),
        (None, true) => Ok(LINK_PAUSE),
        _ => Err(ScenarioError::ClassChoice(section)),
    }
}

fn ms(what: &'static str, value: u64) -> Result<Picos, ScenarioError> {
    if WATCHDOG_MS.contains(&value) {
        Ok(Picos::from_ms(value))
    } else {
        Err(ScenarioError::WatchdogTime { what, value })
    }
}

/// The watchdog's per-class settings: the port's, each class section's over them.
pub(crate) fn setup(spec: &WatchdogSpec) -> Result<WatchdogSetup, ScenarioError> {
    let port = ClassConfig {
        enabled: spec.enabled,
        detection: ms("detection_ms", spec.detection_ms)?,
        restoration: ms("restoration_ms", spec.restoration_ms)?,
        action: action_of(spec.action),
    };
    let mut classes = [port; CLASSES];
    for c in &spec.classes {
        let ClassSpec { priority, link_pause, enabled, detection_ms, restoration_ms, action } = c;
        let class = &mut classes[class_of("[[watchdog.class]]", *priority, *link_pause)?];
        class.enabled = enabled.unwrap_or(class.enabled);
        if let Some(v) = detection_ms {
            class.detection = ms("detection_ms", *v)?;
        }
        if let Some(v) = restoration_ms {
            class.restoration = ms("restoration_ms", *v)?;
        }
        class.action = action.map_or(class.action, action_of);
    }
    Ok(WatchdogSetup { classes, ignore_link_pause: spec.ignore_link_pause })
}

/// The plan of a scenario that has a watchdog, an egress or storms; `None` for one that has
/// none (B then sends the configuration's reverse traffic, as before).
pub fn plan(
    file: &ScenarioFile,
    cfg: &TwoStationConfig,
) -> Result<Option<WatchPlan>, ScenarioError> {
    if file.storms.is_empty() && file.watchdog.is_none() && file.egress.is_none() {
        return Ok(None);
    }
    let duration_us = file.traffic.duration_us;
    let mut storms = Vec::new();
    for s in &file.storms {
        let class = class_of("[[storm]]", s.priority, s.link_pause)?;
        if s.end_us <= s.start_us || s.end_us > duration_us {
            return Err(ScenarioError::StormTimes {
                start: s.start_us,
                end: s.end_us,
                duration_us,
            });
        }
        storms.push(Storm {
            class,
            start: Picos::from_us(s.start_us),
            end: Picos::from_us(s.end_us),
        });
    }
    storms.sort_by_key(|s| (s.start, s.class));
    for (n, a) in storms.iter().enumerate() {
        if storms[n + 1..].iter().any(|b| b.class == a.class && b.start < a.end) {
            return Err(ScenarioError::StormOverlap(class_name(a.class)));
        }
    }
    let link_pause = storms.iter().any(|s| s.class == LINK_PAUSE);
    let priorities =
        storms.iter().filter(|s| s.class != LINK_PAUSE).fold(0u8, |m, s| m | 1 << s.class);
    if link_pause && priorities != 0 {
        return Err(ScenarioError::LinkPauseWithPfcStorms);
    }
    // B honours the peer's PFC on the stormed priorities (and PFC runs on the lossless one); a
    // link-pause storm needs PFC off, since a PFC port ignores 802.3x PAUSE (36.1).
    let pfc_enable = if link_pause { 0 } else { priorities | 1 << cfg.priority };
    let egress = file.egress.clone().unwrap_or_default();
    let mut mask = 0u8;
    for &p in &egress.priorities {
        if p > 7 {
            return Err(ScenarioError::Priority(p));
        }
        mask |= 1 << p;
    }
    if egress.every_frames == 0 || egress.queue_frames == 0 {
        return Err(ScenarioError::Egress);
    }
    let len = u64::from(cfg.reverse_frame_len.unwrap_or(cfg.frame_len));
    let egress = EgressConfig {
        priorities: mask,
        interval: cfg.speed.frame_time(len) * egress.every_frames,
        limit: egress.queue_frames,
    };
    let watchdog = match &file.watchdog {
        None => Some(setup(&WatchdogSpec::default())?),
        Some(spec) => Some(setup(spec)?),
    };
    Ok(Some(WatchPlan { pfc_enable, egress, watchdog, storms }))
}

/// A storm's figures gathered while running.
#[derive(Debug, Default)]
struct Story {
    began: Option<Picos>,
    detected: Option<(Picos, Picos)>,
    restored: Option<Picos>,
    dropped_before: u64,
    dropped_after: Option<u64>,
    queued_at_end: u64,
}

fn queued(s: &TwoStation, class: usize) -> u64 {
    if class == LINK_PAUSE {
        (0..PRIORITIES).map(|n| s.b_queued(n)).sum()
    } else {
        s.b_queued(class)
    }
}

fn dropped(s: &TwoStation, class: usize) -> u64 {
    s.watchdog().map_or(0, |wd| wd.counters(class).frames_dropped)
}

/// Runs the stations with `plan` for the configuration's duration; the report and each storm's
/// story, in the plan's storm order. Also returns the events the run took.
pub fn run(cfg: TwoStationConfig, plan: &WatchPlan) -> (TwoStationReport, Vec<StormResult>, u64) {
    let duration = cfg.duration;
    let mut s = TwoStation::new(cfg);
    s.set_pfc_enable(plan.pfc_enable);
    s.start();
    s.set_egress(plan.egress);
    s.set_watchdog(plan.watchdog);
    let mut stories: Vec<Story> = plan.storms.iter().map(|_| Story::default()).collect();
    let mut found: Vec<watchdog::Event> = Vec::new();
    let mut turns: Vec<Picos> = plan.storms.iter().flat_map(|s| [s.start, s.end]).collect();
    turns.sort();
    turns.dedup();
    let mut events = 0;
    for at in turns {
        events += s.advance_to(at);
        found.extend(s.take_watchdog_events());
        let mut pfc = 0u8;
        let mut link = false;
        for (storm, story) in plan.storms.iter().zip(&mut stories) {
            if storm.end == at {
                story.began = s.peer_storm_began(storm.class);
                story.queued_at_end = queued(&s, storm.class);
            }
            if storm.start == at {
                story.dropped_before = dropped(&s, storm.class);
            }
            if storm.start <= at && at < storm.end {
                if storm.class == LINK_PAUSE {
                    link = true;
                } else {
                    pfc |= 1 << storm.class;
                }
            }
        }
        // The class's drops end with its storm's restoration, at the latest when its next storm
        // starts.
        for (n, storm) in plan.storms.iter().enumerate() {
            if storm.start == at {
                if let Some(prev) = (0..n).rev().find(|k| plan.storms[*k].class == storm.class) {
                    stories[prev].dropped_after = Some(stories[n].dropped_before);
                }
            }
        }
        s.set_peer_storm(pfc, link);
    }
    events += s.advance_to(duration);
    found.extend(s.take_watchdog_events());
    for (storm, story) in plan.storms.iter().zip(&mut stories) {
        story.detected = found.iter().find_map(|e| match *e {
            watchdog::Event::StormDetected { class, at, held_since, .. }
                if class == storm.class && at >= storm.start && held_since < storm.end =>
            {
                Some((held_since, at))
            }
            _ => None,
        });
        story.restored = story.detected.and_then(|(_, detected)| {
            found.iter().find_map(|e| match *e {
                watchdog::Event::Restored { class, at, .. }
                    if class == storm.class && at >= detected =>
                {
                    Some(at)
                }
                _ => None,
            })
        });
        if story.dropped_after.is_none() {
            story.dropped_after = Some(dropped(&s, storm.class));
        }
    }
    let results =
        plan.storms.iter().zip(stories).map(|(storm, story)| result(plan, storm, story)).collect();
    (s.report(), results, events)
}

fn signed_ps(a: Picos, b: Picos) -> i64 {
    let (a, b) = (i128::from(a.as_ps()), i128::from(b.as_ps()));
    i64::try_from(a - b).unwrap_or(i64::MAX)
}

fn result(plan: &WatchPlan, storm: &Storm, story: Story) -> StormResult {
    let config = plan.watchdog.map(|w| w.classes[storm.class]).filter(|c| c.enabled);
    let detection = config.map_or(Picos::ZERO, |c| c.detection);
    let error = |from: Option<Picos>| {
        let (from, (_, detected)) = (from?, story.detected?);
        Some(signed_ps(detected, from + detection))
    };
    let ns = |t: Option<Picos>| t.map(Picos::as_ns);
    StormResult {
        class: class_name(storm.class),
        action: config.map_or("none", |c| c.action.name()).to_string(),
        start_us: storm.start.as_ps() / 1_000_000,
        end_us: storm.end.as_ps() / 1_000_000,
        detection_ms: detection.as_ps() / 1_000_000_000,
        storm_began_ns: ns(story.began),
        hold_began_ns: ns(story.detected.map(|(held, _)| held)),
        detected_ns: ns(story.detected.map(|(_, at)| at)),
        detection_error_ps: error(story.detected.map(|(held, _)| held)),
        after_storm_began_ps: error(story.began),
        frames_dropped: story.dropped_after.unwrap_or(0).saturating_sub(story.dropped_before),
        queued_at_end: story.queued_at_end,
        restored_ns: ns(story.restored),
    }
}
