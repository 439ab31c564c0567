//! What an XPath filter would cost before it runs (DECISIONS.md, "The cost of a filter").
//!
//! libyang evaluates XPath without any limit on time or steps, and a running evaluation
//! cannot be stopped. An expression's cost is not bounded by its length or by the data's
//! size alone: each predicate runs once per node it filters, so an absolute path or `//`
//! inside a predicate multiplies (`//*[count(//*[count(//*) > 0]) > 0]` visits n³ nodes
//! of an n-node tree). So the expression is parsed here and its cost bounded from above,
//! in node visits, from the shape of the data it will run on ([`Shape`]); the caller
//! refuses it if the bound is over its limit.
//!
//! The bound follows libyang's evaluation: every step's result is deduplicated, and a
//! predicate is evaluated once per node of the step it filters. A relative path evaluated
//! for many context nodes that are distinct (the nodes of one step's result) visits each
//! child at most once in all, so `interface[name = 'x']` costs the children of the
//! interfaces once, not once per interface. A bound, not a prediction: a filter that
//! selects little may run far faster than its bound.

use thiserror::Error;

/// The data an expression runs on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Data nodes.
    pub nodes: u64,
    /// Most nodes from a top-level node down to a leaf, that one included.
    pub depth: u64,
    /// Most children of one node (the top-level nodes count as the children of the root).
    pub fanout: u64,
}

/// Why an expression has no cost bound (libyang would refuse it as well).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CostError {
    /// Not an XPath 1.0 expression.
    #[error("not an XPath expression: {0}")]
    Syntax(String),
    /// Parentheses, predicates or calls nested deeper than [`MAX_NESTING`].
    #[error("the expression nests more than {MAX_NESTING} levels deep")]
    TooDeep,
}

/// Deepest nesting of parentheses, predicates and calls (libyang allows 100).
pub const MAX_NESTING: usize = 64;

/// What one `re-match()` call is charged: PCRE2 bounds a match at 10 million steps by
/// default; ordinary patterns take a few thousand.
const REGEX: f64 = 10_000.0;

/// An upper bound on the node visits of evaluating `expr` (as libyang takes it: module
/// names as prefixes) on data of `shape`, the selected nodes' copy for the reply included.
pub fn estimate(expr: &str, shape: Shape) -> Result<f64, CostError> {
    let tokens = lex(expr)?;
    let mut parser = Parser { tokens: &tokens, pos: 0, depth: 0 };
    let ast = parser.expr()?;
    if parser.pos != tokens.len() {
        return Err(CostError::Syntax(format!("unexpected {:?}", tokens[parser.pos])));
    }
    let data = Data {
        n: shape.nodes.max(1) as f64,
        d: shape.depth.max(1) as f64,
        c: shape.fanout.max(1) as f64,
    };
    let top = Ctx { e: 1.0, g: 1.0 };
    let (work, value) = data.cost(&ast, top);
    let copy = match value {
        Value::Nodes(set) => data.string_values(set),
        Value::Scalar => 0.0,
    };
    Ok(work + copy)
}

// ===== tokens =====

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    DotDot,
    At,
    Comma,
    Slash,
    DoubleSlash,
    Pipe,
    Plus,
    Minus,
    /// `=`, `!=`, `<`, `<=`, `>`, `>=`.
    Compare,
    /// `*`, `div`, `mod` as operators.
    Multiply,
    And,
    Or,
    /// A name test: `*`, `prefix:*` or a (qualified) name.
    NameTest,
    /// A node type test: `node()`, `text()`, `comment()`, `processing-instruction()`.
    NodeType,
    /// A function name (a name followed by `(`).
    Function(String),
    /// An axis name (followed by `::`).
    Axis(String),
    /// A literal, number or variable reference.
    Scalar,
}

fn lex(expr: &str) -> Result<Vec<Tok>, CostError> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut i = 0;
    let is_name_start = |c: char| c.is_alphabetic() || c == '_';
    let is_name = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    // XPath 1.0 §3.7: after a token that ends an operand, `*` and names are operators.
    let operand_ended = |out: &[Tok]| {
        !matches!(
            out.last(),
            None | Some(
                Tok::At
                    | Tok::LParen
                    | Tok::LBracket
                    | Tok::Comma
                    | Tok::Axis(_)
                    | Tok::Slash
                    | Tok::DoubleSlash
                    | Tok::Pipe
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Compare
                    | Tok::Multiply
                    | Tok::And
                    | Tok::Or
            )
        )
    };
    // The next character that is not blank, from `j`.
    let next_solid = |j: usize| chars[j..].iter().copied().find(|c| !c.is_whitespace());
    while let Some(&c) = chars.get(i) {
        let tok = match c {
            _ if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            '[' => Tok::LBracket,
            ']' => Tok::RBracket,
            '@' => Tok::At,
            ',' => Tok::Comma,
            '|' => Tok::Pipe,
            '+' => Tok::Plus,
            '-' => Tok::Minus,
            '=' => Tok::Compare,
            '!' if chars.get(i + 1) == Some(&'=') => {
                i += 1;
                Tok::Compare
            }
            '<' | '>' => {
                if chars.get(i + 1) == Some(&'=') {
                    i += 1;
                }
                Tok::Compare
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                i += 1;
                Tok::DoubleSlash
            }
            '/' => Tok::Slash,
            '.' if chars.get(i + 1) == Some(&'.') => {
                i += 1;
                Tok::DotDot
            }
            '.' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => Tok::Dot,
            '*' if operand_ended(&out) => Tok::Multiply,
            '*' => Tok::NameTest,
            '\'' | '"' => {
                let end = chars[i + 1..].iter().position(|&x| x == c);
                let end = end.ok_or_else(|| CostError::Syntax("unterminated literal".into()))?;
                i += end + 1;
                Tok::Scalar
            }
            '.' | '0'..='9' => {
                while chars.get(i + 1).is_some_and(|x| x.is_ascii_digit() || *x == '.') {
                    i += 1;
                }
                Tok::Scalar
            }
            '$' => {
                while chars.get(i + 1).is_some_and(|&x| is_name(x) || x == ':') {
                    i += 1;
                }
                Tok::Scalar
            }
            _ if is_name_start(c) => {
                let start = i;
                while chars.get(i + 1).is_some_and(|&x| is_name(x)) {
                    i += 1;
                }
                // A prefix: `p:name` or `p:*` (not `axis::`).
                if chars.get(i + 1) == Some(&':') && chars.get(i + 2) != Some(&':') {
                    match chars.get(i + 2) {
                        Some('*') => i += 2,
                        Some(&x) if is_name_start(x) => {
                            i += 2;
                            while chars.get(i + 1).is_some_and(|&x| is_name(x)) {
                                i += 1;
                            }
                        }
                        _ => return Err(CostError::Syntax("a prefix without a name".into())),
                    }
                }
                let name: String = chars[start..=i].iter().collect();
                let after = next_solid(i + 1);
                let axis = after == Some(':')
                    && chars[i + 1..].iter().copied().filter(|c| !c.is_whitespace()).nth(1)
                        == Some(':');
                if operand_ended(&out) {
                    match name.as_str() {
                        "and" => Tok::And,
                        "or" => Tok::Or,
                        "div" | "mod" => Tok::Multiply,
                        _ => return Err(CostError::Syntax(format!("unexpected name '{name}'"))),
                    }
                } else if axis {
                    // On to the second colon (blanks may surround the first).
                    for _ in 0..2 {
                        i += 1;
                        while chars.get(i) != Some(&':') {
                            i += 1;
                        }
                    }
                    Tok::Axis(name)
                } else if after == Some('(') {
                    match name.as_str() {
                        "node" | "text" | "comment" | "processing-instruction" => Tok::NodeType,
                        _ => Tok::Function(name),
                    }
                } else {
                    Tok::NameTest
                }
            }
            other => return Err(CostError::Syntax(format!("unexpected character '{other}'"))),
        };
        out.push(tok);
        i += 1;
    }
    Ok(out)
}

// ===== syntax =====

#[derive(Debug, Clone, Copy, PartialEq)]
enum Axis {
    /// child, attribute, namespace: the node's own.
    Child,
    /// descendant, descendant-or-self (and `//`).
    Descendant,
    /// parent, self (and `..`, `.`).
    Near,
    /// ancestor, ancestor-or-self.
    Ancestor,
    /// following-sibling, preceding-sibling.
    Sibling,
    /// following, preceding.
    Document,
}

#[derive(Debug)]
struct Step {
    axis: Axis,
    predicates: Vec<Expr>,
}

#[derive(Debug)]
enum Start {
    Root,
    Context,
    /// A filter expression: a primary expression and its predicates.
    Filter(Box<Expr>, Vec<Expr>),
}

/// An expression. Chains of one operator are kept flat (`a or b or c` is one `Combine` of
/// three), so that a long chain costs no recursion.
#[derive(Debug)]
enum Expr {
    Scalar,
    /// Comparisons, left to right (node-sets compare node by node).
    Compare(Vec<Expr>),
    /// and, or, arithmetic, unary minus: operands evaluated, nothing else.
    Combine(Vec<Expr>),
    Union(Vec<Expr>),
    Call(String, Vec<Expr>),
    Path(Start, Vec<Step>),
}

struct Parser<'a> {
    tokens: &'a [Tok],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok) -> Result<(), CostError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(CostError::Syntax(format!("expected {t:?}, found {:?}", self.peek())))
        }
    }

    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, CostError>,
    ) -> Result<T, CostError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(CostError::TooDeep);
        }
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// OrExpr, AndExpr, arithmetic: operands combined.
    fn expr(&mut self) -> Result<Expr, CostError> {
        self.binary(0)
    }

    /// Binary operators by precedence level: or, and, comparison, additive, multiplicative.
    fn binary(&mut self, level: usize) -> Result<Expr, CostError> {
        if level == 5 {
            return self.unary();
        }
        let mut operands = vec![self.binary(level + 1)?];
        while matches!(
            (level, self.peek()),
            (0, Some(Tok::Or))
                | (1, Some(Tok::And))
                | (2, Some(Tok::Compare))
                | (3, Some(Tok::Plus | Tok::Minus))
                | (4, Some(Tok::Multiply))
        ) {
            self.pos += 1;
            operands.push(self.binary(level + 1)?);
        }
        Ok(match (operands.len(), level) {
            (1, _) => operands.pop().unwrap_or(Expr::Scalar),
            (_, 2) => Expr::Compare(operands),
            _ => Expr::Combine(operands),
        })
    }

    fn unary(&mut self) -> Result<Expr, CostError> {
        if self.eat(&Tok::Minus) {
            let operand = self.nested(Self::unary)?;
            return Ok(Expr::Combine(vec![operand]));
        }
        let mut operands = vec![self.path()?];
        while self.eat(&Tok::Pipe) {
            operands.push(self.path()?);
        }
        Ok(match operands.len() {
            1 => operands.pop().unwrap_or(Expr::Scalar),
            _ => Expr::Union(operands),
        })
    }

    /// PathExpr: a location path, or a filter expression perhaps followed by a path.
    fn path(&mut self) -> Result<Expr, CostError> {
        let primary = match self.peek() {
            Some(Tok::LParen) => {
                self.pos += 1;
                let inner = self.nested(Self::expr)?;
                self.expect(&Tok::RParen)?;
                Some(inner)
            }
            Some(Tok::Scalar) => {
                self.pos += 1;
                Some(Expr::Scalar)
            }
            Some(Tok::Function(name)) => {
                let name = name.clone();
                self.pos += 1;
                self.expect(&Tok::LParen)?;
                let args = self.nested(|p| {
                    let mut args = Vec::new();
                    if !p.eat(&Tok::RParen) {
                        loop {
                            args.push(p.expr()?);
                            if p.eat(&Tok::RParen) {
                                break;
                            }
                            p.expect(&Tok::Comma)?;
                        }
                    }
                    Ok(args)
                })?;
                Some(Expr::Call(name, args))
            }
            _ => None,
        };
        let (start, mut steps) = match primary {
            Some(primary) => {
                let predicates = self.predicates()?;
                let start = Start::Filter(Box::new(primary), predicates);
                if !matches!(self.peek(), Some(Tok::Slash | Tok::DoubleSlash)) {
                    return Ok(match start {
                        Start::Filter(e, p) if p.is_empty() => *e,
                        start => Expr::Path(start, Vec::new()),
                    });
                }
                (start, Vec::new())
            }
            None => match self.peek() {
                Some(Tok::Slash) => {
                    self.pos += 1;
                    if !self.starts_step() {
                        return Ok(Expr::Path(Start::Root, Vec::new()));
                    }
                    (Start::Root, vec![self.step()?])
                }
                Some(Tok::DoubleSlash) => {
                    self.pos += 1;
                    let any = Step { axis: Axis::Descendant, predicates: Vec::new() };
                    (Start::Root, vec![any, self.step()?])
                }
                _ => (Start::Context, vec![self.step()?]),
            },
        };
        loop {
            if self.eat(&Tok::Slash) {
                steps.push(self.step()?);
            } else if self.eat(&Tok::DoubleSlash) {
                steps.push(Step { axis: Axis::Descendant, predicates: Vec::new() });
                steps.push(self.step()?);
            } else {
                return Ok(Expr::Path(start, steps));
            }
        }
    }

    fn starts_step(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::Dot | Tok::DotDot | Tok::At | Tok::NameTest | Tok::NodeType | Tok::Axis(_))
        )
    }

    fn step(&mut self) -> Result<Step, CostError> {
        let axis = match self.peek() {
            Some(Tok::Dot) | Some(Tok::DotDot) => {
                self.pos += 1;
                return Ok(Step { axis: Axis::Near, predicates: Vec::new() });
            }
            Some(Tok::At) => {
                self.pos += 1;
                Axis::Child
            }
            Some(Tok::Axis(name)) => {
                let axis = match name.as_str() {
                    "child" | "attribute" | "namespace" => Axis::Child,
                    "descendant" | "descendant-or-self" => Axis::Descendant,
                    "parent" | "self" => Axis::Near,
                    "ancestor" | "ancestor-or-self" => Axis::Ancestor,
                    "following-sibling" | "preceding-sibling" => Axis::Sibling,
                    "following" | "preceding" => Axis::Document,
                    other => return Err(CostError::Syntax(format!("unknown axis '{other}'"))),
                };
                self.pos += 1;
                axis
            }
            _ => Axis::Child,
        };
        match self.peek() {
            Some(Tok::NameTest) => self.pos += 1,
            Some(Tok::NodeType) => {
                self.pos += 1;
                self.expect(&Tok::LParen)?;
                // processing-instruction('target'): the literal is all it may hold.
                self.eat(&Tok::Scalar);
                self.expect(&Tok::RParen)?;
            }
            other => {
                return Err(CostError::Syntax(format!("expected a node test, found {other:?}")))
            }
        }
        Ok(Step { axis, predicates: self.predicates()? })
    }

    fn predicates(&mut self) -> Result<Vec<Expr>, CostError> {
        let mut out = Vec::new();
        while self.eat(&Tok::LBracket) {
            out.push(self.nested(Self::expr)?);
            self.expect(&Tok::RBracket)?;
        }
        Ok(out)
    }
}

// ===== cost =====

/// The data's shape as numbers (visits are counted in floating point: bounds of deeply
/// nested expressions overflow any integer, and only their comparison with a limit
/// matters).
struct Data {
    n: f64,
    d: f64,
    c: f64,
}

/// The contexts an expression is evaluated in.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    /// Evaluations (one per context node).
    e: f64,
    /// Groups the context nodes form, each of distinct nodes (the results of one step).
    g: f64,
}

/// A node-set over all evaluations.
#[derive(Debug, Clone, Copy)]
struct Set {
    /// Nodes, summed over the evaluations.
    total: f64,
    /// Groups of distinct nodes they form (at most one per evaluation, each of which
    /// deduplicates its own set).
    groups: f64,
}

#[derive(Debug, Clone, Copy)]
enum Value {
    Nodes(Set),
    Scalar,
}

impl Data {
    /// The work of evaluating `expr` in `ctx`, and what it yields.
    fn cost(&self, expr: &Expr, ctx: Ctx) -> (f64, Value) {
        match expr {
            Expr::Scalar => (ctx.e, Value::Scalar),
            Expr::Combine(operands) => {
                let mut work = ctx.e;
                for o in operands {
                    let (w, v) = self.cost(o, ctx);
                    work += w + self.first_string(v, ctx);
                }
                (work, Value::Scalar)
            }
            Expr::Compare(operands) => {
                let mut work = 0.0;
                // The left operand of each comparison after the first is its boolean.
                let mut left = Value::Scalar;
                for (i, o) in operands.iter().enumerate() {
                    let (w, v) = self.cost(o, ctx);
                    work += ctx.e + w + self.all_strings(v);
                    if let (1, Value::Nodes(x), Value::Nodes(y)) = (i, left, v) {
                        // Every pair, in each evaluation: at most all of x times the
                        // largest y.
                        work += x.total * y.total.min(self.n);
                    }
                    left = v;
                }
                (work, Value::Scalar)
            }
            Expr::Union(operands) => {
                let (mut work, mut total) = (0.0, 0.0);
                for o in operands {
                    let (w, v) = self.cost(o, ctx);
                    work += w + self.size(v);
                    total += self.size(v);
                }
                let set = Set { total: total.min(ctx.e * self.n), groups: ctx.e };
                (work, Value::Nodes(set))
            }
            Expr::Call(name, args) => self.call(name, args, ctx),
            Expr::Path(start, steps) => {
                let (mut work, mut set) = match start {
                    // The root, once per evaluation.
                    Start::Root => (ctx.e, Set { total: ctx.e, groups: ctx.e }),
                    Start::Context => (ctx.e, Set { total: ctx.e, groups: ctx.g }),
                    Start::Filter(primary, predicates) => {
                        let (w, v) = self.cost(primary, ctx);
                        let set = match v {
                            Value::Nodes(s) => s,
                            // (A path after a scalar is an error in libyang: no cost.)
                            Value::Scalar => Set { total: 0.0, groups: 0.0 },
                        };
                        (w + self.predicates(predicates, set), set)
                    }
                };
                for step in steps {
                    let (w, next) = self.step(step.axis, set, ctx);
                    work += w + self.predicates(&step.predicates, next);
                    set = next;
                }
                (work, Value::Nodes(set))
            }
        }
    }

    /// One step from `set`: its work and result (each evaluation's result deduplicated).
    fn step(&self, axis: Axis, set: Set, ctx: Ctx) -> (f64, Set) {
        let Data { n, d, c } = *self;
        let (work, same_groups) = match axis {
            // Children of distinct nodes are distinct: each group visits each node once.
            Axis::Child => ((set.total * c).min(set.groups * n), true),
            Axis::Descendant => ((set.total * n).min(set.groups * n * d), false),
            Axis::Near => (set.total, false),
            Axis::Ancestor => (set.total * d, false),
            Axis::Sibling => (set.total * c, false),
            Axis::Document => (set.total * n, false),
        };
        let total = work.min(ctx.e * n);
        let groups = if same_groups { set.groups } else { ctx.e };
        (work, Set { total, groups: groups.min(ctx.e) })
    }

    /// Predicates on the nodes of `set`: each runs once per node, the nodes of one
    /// evaluation being distinct.
    fn predicates(&self, predicates: &[Expr], set: Set) -> f64 {
        let inner = Ctx { e: set.total, g: set.groups.min(set.total) };
        predicates.iter().map(|p| self.cost(p, inner).0).sum()
    }

    fn call(&self, name: &str, args: &[Expr], ctx: Ctx) -> (f64, Value) {
        let mut work = ctx.e;
        let mut values = Vec::new();
        for a in args {
            let (w, v) = self.cost(a, ctx);
            work += w;
            values.push(v);
        }
        let local = name.rsplit(':').next().unwrap_or(name);
        match local {
            "count" | "boolean" | "not" | "last" | "position" | "true" | "false" => {
                work += values.iter().map(|&v| self.size(v)).sum::<f64>();
                (work, Value::Scalar)
            }
            "sum" => {
                work += values.iter().map(|&v| self.all_strings(v)).sum::<f64>();
                (work, Value::Scalar)
            }
            "current" => (work, Value::Nodes(Set { total: ctx.e, groups: ctx.e })),
            // A leafref's target is looked up like a path from the root.
            "deref" => {
                work += ctx.e * self.n * self.d;
                (work, Value::Nodes(Set { total: ctx.e, groups: ctx.e }))
            }
            "re-match" => {
                work += ctx.e * REGEX;
                work += values.iter().map(|&v| self.first_string(v, ctx)).sum::<f64>();
                (work, Value::Scalar)
            }
            // String functions, derived-from, enum-value, bit-is-set and the rest: each
            // node-set argument turned into its first node's string value.
            _ => {
                work += values.iter().map(|&v| self.first_string(v, ctx)).sum::<f64>();
                (work, Value::Scalar)
            }
        }
    }

    fn size(&self, v: Value) -> f64 {
        match v {
            Value::Nodes(s) => s.total,
            Value::Scalar => 0.0,
        }
    }

    /// The string values of every node of `set` (each its subtree's text): a group of
    /// distinct nodes holds each node in at most `d` of their subtrees.
    fn string_values(&self, set: Set) -> f64 {
        (set.total * self.n).min(set.groups * self.n * self.d)
    }

    fn all_strings(&self, v: Value) -> f64 {
        match v {
            Value::Nodes(s) => self.string_values(s),
            Value::Scalar => 0.0,
        }
    }

    /// A node-set turned into a string or number: its first node's string value, per
    /// evaluation.
    fn first_string(&self, v: Value, ctx: Ctx) -> f64 {
        match v {
            Value::Nodes(s) => self.string_values(s).min(ctx.e * self.n),
            Value::Scalar => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4096 interfaces of about 10 nodes each.
    const LARGE: Shape = Shape { nodes: 45_000, depth: 4, fanout: 4096 };

    fn cost(expr: &str, shape: Shape) -> f64 {
        estimate(expr, shape).unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    #[test]
    fn ordinary_filters_cost_about_the_data_they_touch() {
        let n = LARGE.nodes as f64;
        for expr in [
            "/ietf-interfaces:interfaces",
            "/ietf-interfaces:interfaces/interface[name='eth0']",
            "/ietf-interfaces:interfaces/ietf-interfaces:interface[ietf-interfaces:name = 'eth0']/ietf-interfaces:description",
            "/a:x/a:y[a:k1='1'][a:k2=\"2\"]/a:z | /a:w",
            "//ietf-interfaces:interface[contains(ietf-interfaces:description, 'uplink')]",
            "/ietf-interfaces:interfaces/interface[enabled = 'false' and type = 'iana-if-type:ethernetCsmacd']",
            "count(/ietf-interfaces:interfaces/interface) > 10",
            "/ietf-interfaces:interfaces/interface[position() <= 3]",
            "//*",
        ] {
            let c = cost(expr, LARGE);
            assert!(c <= 30.0 * n, "{expr}: {c} for {n} nodes");
        }
    }

    #[test]
    fn nested_absolute_paths_multiply() {
        let n = LARGE.nodes as f64;
        let one = cost("//*[count(//*) > 0]", LARGE);
        let two = cost("//*[count(//*[count(//*) > 0]) > 0]", LARGE);
        assert!(one >= n * n, "{one}");
        assert!(two >= n * n * n, "{two}");
        // Comparing two node-sets compares every pair.
        assert!(cost("//* = //*", LARGE) >= n * n);
        // On small data the same expressions are cheap.
        let small = Shape { nodes: 30, depth: 3, fanout: 10 };
        assert!(cost("//*[count(//*) > 0]", small) < 10_000.0);
    }

    #[test]
    fn syntax_is_checked_and_nesting_bounded() {
        for bad in ["/a[", "/a]", "(/a", "'open", "/a/", "a b", "/a:", "//", "#"] {
            assert!(matches!(estimate(bad, LARGE), Err(CostError::Syntax(_))), "{bad}");
        }
        let deep = format!("{}1{}", "(".repeat(MAX_NESTING + 1), ")".repeat(MAX_NESTING + 1));
        assert_eq!(estimate(&deep, LARGE), Err(CostError::TooDeep));
        let deep_predicates = format!("/a{}", "[b".repeat(MAX_NESTING + 1));
        assert_eq!(estimate(&deep_predicates, LARGE), Err(CostError::TooDeep));
        // Long chains of one operator need no deep recursion.
        for op in [" or ", " = ", " + ", " | "] {
            let chain = vec!["/a"; 100_000].join(op);
            assert!(estimate(&chain, LARGE).is_ok(), "{op}");
        }
        // Operators, axes and node types.
        for good in [
            "/a/child::b/descendant-or-self::node()/self::c/..",
            "-1 + 2 * 3 div 4 mod 5 - $v",
            "/a/@b | /c/text()",
            "not(/a) or /b and /c != 'x' and 1 <= 2",
            "/a:*/b:*",
            "(/a | /b)[1]/c",
            "/a[. = current()]",
            "/a/child :: b",
        ] {
            assert!(estimate(good, LARGE).is_ok(), "{good}");
        }
    }
}
