//! A headroom shown as the delays it is made of, each tied to the item of 36.1.1 it accounts
//! for, so that a user can see where every bit of the allowance comes from and argue with it.
//! The lines always add up exactly to the total.

use std::fmt;

use super::units::group_digits;

/// One of the delays a) … k) of 36.1.1 (station B initiates PFC, station A is paused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Item {
    /// a) B's reception processing to calculate the remaining buffering.
    A,
    /// b) B's PFC Initiator initiating PFC after that calculation.
    B,
    /// c) Encoding of the PFC frame and B's interface-stack transmit delays.
    C,
    /// d) B's in-progress frame transmission completing (a maximum frame).
    D,
    /// e) PFC frame transmission on the physical link.
    E,
    /// f) The link delay from B to A.
    F,
    /// g) PFC frame reception and validation by A's interface stack.
    G,
    /// h) A's PFC Receiver decoding the PFC and halting transmission selection.
    H,
    /// i) A's in-progress frame transmission completing (a maximum frame).
    I,
    /// j) The link delay from A to B.
    J,
    /// k) B's interface-stack receive delays, reception processing and buffering.
    K,
}

impl Item {
    /// Every item, a) to k).
    pub const ALL: [Item; 11] = [
        Item::A,
        Item::B,
        Item::C,
        Item::D,
        Item::E,
        Item::F,
        Item::G,
        Item::H,
        Item::I,
        Item::J,
        Item::K,
    ];

    /// The item's letter as 36.1.1 writes it: `a)`.
    pub const fn label(self) -> &'static str {
        match self {
            Item::A => "a)",
            Item::B => "b)",
            Item::C => "c)",
            Item::D => "d)",
            Item::E => "e)",
            Item::F => "f)",
            Item::G => "g)",
            Item::H => "h)",
            Item::I => "i)",
            Item::J => "j)",
            Item::K => "k)",
        }
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// The items a line accounts for: one item, or a run of them when a single figure covers
/// several (the peer's PFC Local Delay TLV covers g) to i)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Items {
    pub first: Item,
    pub last: Item,
}

impl Items {
    /// A single item.
    pub const fn one(item: Item) -> Self {
        Items { first: item, last: item }
    }

    /// The items `first` to `last`, inclusive.
    pub const fn span(first: Item, last: Item) -> Self {
        Items { first, last }
    }
}

impl fmt::Display for Items {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.first == self.last {
            write!(f, "{}", self.first)
        } else {
            write!(f, "{}-{}", self.first, self.last)
        }
    }
}

/// One delay in a headroom.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    /// Which of 36.1.1 a) … k) this delay belongs to.
    pub items: Items,
    /// What the delay is and where its value came from, for a person.
    pub description: String,
    /// Bit times at the link rate. Signed only because a peer may advertise a negative PFC Local
    /// Delay (D.2.19); every other line is zero or more.
    pub bits: i64,
}

/// A headroom's delays, in the order of 36.1.1. Several lines may share an item (a maximum
/// frame and a transmit interface delay both delay the end of A's transmission, item i)).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Breakdown {
    pub lines: Vec<Line>,
}

impl Breakdown {
    /// The sum of the lines, in bit times.
    pub fn total(&self) -> i128 {
        self.lines.iter().map(|l| l.bits as i128).sum()
    }

    /// The sum of the lines that belong to `item`, spans included.
    pub fn item_bits(&self, item: Item) -> i128 {
        self.lines
            .iter()
            .filter(|l| l.items.first <= item && item <= l.items.last)
            .map(|l| l.bits as i128)
            .sum()
    }
}

impl fmt::Display for Breakdown {
    /// An aligned table, numbers right-aligned and grouped as the draft writes them:
    ///
    /// ```text
    /// item  delay                                          bit times
    /// b)    B: PFC frame generation                              200
    ///       total                                            126 224
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ITEM: &str = "item";
        const DELAY: &str = "delay";
        const BITS: &str = "bit times";
        const TOTAL: &str = "total";
        let labels: Vec<String> = self.lines.iter().map(|l| l.items.to_string()).collect();
        let numbers: Vec<String> =
            self.lines.iter().map(|l| group_digits(l.bits as i128)).collect();
        let total = group_digits(self.total());
        let w_item = labels.iter().map(String::len).chain([ITEM.len()]).max().unwrap_or(0);
        let w_desc = self
            .lines
            .iter()
            .map(|l| l.description.chars().count())
            .chain([DELAY.len(), TOTAL.len()])
            .max()
            .unwrap_or(0);
        let w_bits =
            numbers.iter().map(String::len).chain([BITS.len(), total.len()]).max().unwrap_or(0);
        writeln!(f, "{ITEM:<w_item$}  {DELAY:<w_desc$}  {BITS:>w_bits$}")?;
        for ((line, label), number) in self.lines.iter().zip(&labels).zip(&numbers) {
            writeln!(f, "{label:<w_item$}  {:<w_desc$}  {number:>w_bits$}", line.description)?;
        }
        write!(f, "{:<w_item$}  {TOTAL:<w_desc$}  {total:>w_bits$}", "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(items: Items, description: &str, bits: i64) -> Line {
        Line { items, description: description.to_string(), bits }
    }

    #[test]
    fn table_is_aligned_and_adds_up() {
        let b = Breakdown {
            lines: vec![
                line(Items::one(Item::B), "B: PFC frame generation", 200),
                line(Items::one(Item::D), "B: frame in progress", 16_160),
                line(Items::span(Item::G, Item::I), "A: from its PFC Local Delay TLV", -1_000),
            ],
        };
        assert_eq!(b.total(), 15_360);
        assert_eq!(b.item_bits(Item::H), -1_000);
        assert_eq!(b.item_bits(Item::A), 0);
        let text = b.to_string();
        let expect = "\
item   delay                            bit times
b)     B: PFC frame generation                200
d)     B: frame in progress                16 160
g)-i)  A: from its PFC Local Delay TLV     -1 000
       total                               15 360";
        assert_eq!(text, expect);
    }

    #[test]
    fn labels_follow_the_standard() {
        let letters: String = Item::ALL.iter().map(|i| i.label()).collect();
        assert_eq!(letters, "a)b)c)d)e)f)g)h)i)j)k)");
    }
}
