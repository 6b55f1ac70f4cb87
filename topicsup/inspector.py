"""Token inspector: resample one document of a live Session one token at a time, and show
what the sampler does with each token (for teaching MCMC for topic models).

For every token it reports the exact conditional p(k | rest) (docs/math.md sec. 2) next to each
proposal distribution q(k), and each Metropolis-Hastings step of the light samplers: the
proposal kind drawn, the current topic s, the proposed t, the ratio
p(t) q(s | t) / (p(s) q(t | s)), the acceptance probability min(1, ratio), the uniform and the
decision. Gibbs samplers draw from the exact conditional: one "step" with acceptance 1.

Why the numbers are the sweep's own. A token is resampled with the kernels' functions:
the proposal draws (``light.draw_doc_proposal`` ...), the acceptance arithmetic
(``light.doc_step_ratio`` ... ``light.accepts``) and the supervised bookkeeping
(``kernels.supervised``) are the very ones ``light_sweep`` inlines, and the Gibbs conditional
is summed with ``gibbs.conditional_weight``. Only the loop over MH steps is written out, in
Python, so it can record every step; it lives with the sampler it mirrors (the replay
``samplers.stepping`` drives through the ``Stepping`` protocol of ``samplers.gibbs.Gibbs`` and
``samplers.light.Light``, each given a typed ``StepContext`` of the chain: its bound problem
and live state, never the session), and a sampler without it declares so
(``TopicSampler.stepping`` empty), which the inspector names. This module builds the
context from a session, keeps the records and draws the document. The random stream is read
exactly as the sweep reads it (each token's uniforms drawn ``light.LEAD`` tokens ahead, the
stale word tables' own draws in between), so stepping a whole document from the same generator state gives the
sweep's chain, bit for bit: ``tests/test_inspector.py`` checks it for every sampler. The
exact conditional and the proposal distributions shown are computed separately, in plain
numpy from ``z`` (``stepping.exact_conditional`` ...), and the tests check the kernel's
ratios against them.

Random numbers. The inspector draws from its own xoshiro stream (``seed``), not from the
session's: a document is inspected out of the sweep's order, so reading the session's stream
would silently turn the session's chain into another one, while the user only asked to look
at one document. Its moves are still moves of the chain (each leaves the posterior
invariant), so ``session.run(...)`` continues from the inspected state. Set ``rng`` to a copy
of any generator state to replay a sweep exactly.

Settings (``mh_steps``, ``composition``, proposal weights) are read from ``session.model``
when a pass over the document starts, as a sweep reads them per block. If the session
samples between two steps, the document's bookkeeping is reloaded from the new state at the
next step (``TokenStep.reloaded``).
"""

from __future__ import annotations

import colorsys
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from . import validation as check
from .arrays import F64, Array, Rng
from .kernels import info as info_layout
from .kernels.rng import seed_state
from .samplers import REGISTRY as SAMPLERS, stepping
from .samplers.gibbs import Gibbs
from .samplers.light import Light
# the replay's distributions and the MH step's record are the samplers' stepping's
# (importable from here)
from .samplers.stepping import (MHStep, StepContext, StepPass, doc_proposal,  # noqa: F401
                                exact_conditional, exp_proposal, marginal_g, supervised_g,
                                word_proposal)

if TYPE_CHECKING:
    from .models.lda import LDA
    from .problem import State

# the inspector's random stream: far from the Session's stream 0 and the tests' small ones
INSPECTOR_STREAM = 0x5EC7

STEP_COLUMNS = ["step", "kind", "current", "proposed", "ratio", "acceptance", "u", "accepted",
                "table_rebuilt"]
SAMPLER_NAMES = {name: SAMPLERS.get(name).stepping for name in SAMPLERS
                 if SAMPLERS.get(name).stepping}   # the samplers the inspector can step
# the proposal kinds in plain words, as the inspector's widget names them (exp: the label
# term's proposal)
KIND_NAMES = {"doc": "doc", "word": "word", "exp": "label", "conditional": "exact conditional"}


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names)


def sampler_title(model: LDA) -> str:
    """The model and its topic sampler in plain words, as the inspector's widget names them:
    the model's class and how its sampler resamples a token, e.g. ``"LightMedLDA · light
    sampler (doc, word proposals, cycled; label proposal off; 6 Metropolis-Hastings steps per
    token)"`` or ``"LDA · collapsed Gibbs sampler (each token drawn from its exact
    conditional)"``. Read from the model's settings (live ones included), so it is what the
    sampler does now."""
    name = type(model).__name__
    ts = model.topic_sampler
    if isinstance(ts, Gibbs):
        return f"{name} · collapsed Gibbs sampler (each token drawn from its exact conditional)"
    if not isinstance(ts, Light):   # a future sampler with stepping: its own name for it
        return f"{name} · {model.sampler} sampler ({ts.stepping or 'no token stepping'})"
    sup = model.supervised
    kinds = [KIND_NAMES.get(k, k) for k in ts.kinds(sup)]
    if ts.composition == "cycle":
        on = [kinds[int(j)] for j in ts.cycle_order(sup)]
        how = f"{_listed(on)} proposals, cycled"
    else:
        p = np.diff(ts.kind_cumulative(sup), prepend=0.0)
        on = [k for k, q in zip(kinds, p) if q > 0]
        if np.allclose(p[p > 0], p[p > 0][0]):
            how = f"{_listed(on)} proposals, mixed at random"
        else:
            how = "mixed at random: " + ", ".join(f"{k} {q:.2g}" for k, q in zip(kinds, p)
                                                  if q > 0)
    off = [k for k in kinds if k not in on]
    if off:
        how += f"; {_listed(off)} proposal{'s' if len(off) > 1 else ''} off"
    if ts.stale:
        how += "; stale word tables"
    steps = "step" if ts.mh_steps == 1 else "steps"
    return f"{name} · light sampler ({how}; {ts.mh_steps} Metropolis-Hastings {steps} per token)"


# ---------------------------------------------------------------------- records

@dataclass(frozen=True)
class TokenStep:
    """What resampling one token did, with the distributions it was resampled from.

    Attributes
    ----------
    doc, position, token : int
        The document, the token's position in it and its index in the corpus.
    word : str
    word_id : int
    old_topic, new_topic : int
    sampler : str
        The model's topic sampler, one with token stepping (a key of ``SAMPLER_NAMES``).
    steps : tuple of MHStep
        The token's MH steps in order (one for Gibbs).
    exact : ndarray
        p(k | rest) with the token removed, computed from ``z`` in numpy (``exact_conditional``).
    proposals : dict of str to ndarray
        Each proposal distribution of the sampler at the token's old topic (``proposal_doc``
        ...); Gibbs: ``{"conditional": the kernel's conditional}``.
    reloaded : bool
        The session sampled since the inspector's previous step, so the document was reloaded
        from the new state first.
    """

    doc: int
    position: int
    token: int
    word: str
    word_id: int
    old_topic: int
    new_topic: int
    sampler: str
    steps: tuple[MHStep, ...]
    exact: F64 = field(repr=False)
    proposals: dict[str, F64] = field(repr=False)
    reloaded: bool = False

    def conditional_table(self, tidy: bool = False) -> pd.DataFrame:
        """One row per topic: ``topic``, ``exact`` and one ``proposal_<kind>`` column per
        proposal (at the old topic); ``tidy=True`` gives (topic, distribution, probability)
        rows for a chart."""
        return _conditional_frame(self.exact, self.proposals, tidy)

    def steps_frame(self) -> pd.DataFrame:
        """One row per MH step: ``step``, ``kind``, ``current``, ``proposed``, ``ratio``,
        ``acceptance``, ``u``, ``accepted``, ``table_rebuilt``."""
        return pd.DataFrame(
            [{"step": n + 1, "kind": st.kind, "current": st.current, "proposed": st.proposed,
              "ratio": st.ratio, "acceptance": st.acceptance, "u": st.u,
              "accepted": st.accepted, "table_rebuilt": st.table_rebuilt}
             for n, st in enumerate(self.steps)], columns=STEP_COLUMNS)

    def describe(self) -> str:
        """The token's resampling in words, one line per step."""
        head = (f"token {self.position} of document {self.doc}, {self.word!r}, at topic "
                f"{self.old_topic}")
        note = " (the session sampled meanwhile: document reloaded)" if self.reloaded else ""
        if self.sampler == "gibbs":
            lines = [f"{head}{note}: {self.steps[0].describe()}."]
        else:
            lines = [f"{head}{note}:"] + [f"  step {n + 1}: {st.describe()}."
                                          for n, st in enumerate(self.steps)]
        lines.append(f"  now at topic {self.new_topic} "
                     f"(exact p = {self.exact[self.new_topic]:.3g}).")
        return "\n".join(lines)


def _conditional_frame(exact: F64, proposals: dict[str, F64], tidy: bool) -> pd.DataFrame:
    df = pd.DataFrame({"topic": np.arange(len(exact)), "exact": exact,
                       **{f"proposal_{k}": q for k, q in proposals.items()}})
    if not tidy:
        return df
    return df.melt(id_vars="topic", var_name="distribution", value_name="probability")


# ---------------------------------------------------------------------- the inspector

class TokenInspector:
    """Step through one document of a live session token by token, as its sampler would.

    Parameters
    ----------
    session : Session
        A session whose model's topic sampler has token stepping (``TopicSampler.stepping``;
        ``SAMPLER_NAMES`` lists them), e.g. ``LDA``, ``MedLDA`` or ``LightMedLDA``; another
        sampler is refused, naming those.
    doc : int
        The document (row of ``session.corpus``).
    seed : int
        Seed of the inspector's own random stream (see the module docstring).

    Attributes
    ----------
    rng : ndarray
        The inspector's xoshiro state; assign a copy of another generator's state to replay
        it (the tests replay a sweep's).
    records : list of TokenStep
        Every step made, in order.
    info : ndarray
        The kernels' info record (``kernels.info``) for the inspector's steps: proposals,
        acceptances and summed acceptance probabilities per kind, tokens, changes.

    Examples
    --------
    >>> insp = TokenInspector(session, doc=3)          # doctest: +SKIP
    >>> rec = insp.step(); print(rec.describe())       # doctest: +SKIP
    >>> rec.conditional_table()                        # doctest: +SKIP
    >>> insp.run_document(); session.run(10)           # doctest: +SKIP
    """

    def __init__(self, session: Any, doc: int = 0, *, seed: int = 0) -> None:
        for name in ("state", "corpus", "model", "_lock"):
            if not hasattr(session, name):
                raise TypeError(f"session must be a topicsup Session, got "
                                f"{type(session).__name__}")
        sampler = session.model.sampler
        # the sampler part declares whether it has stepping (a model's own "gibbs", such as
        # HDP-LDA's, is not LDA's)
        if not session.model.topic_sampler.stepping:
            raise ValueError(f"TokenInspector steps the topic samplers "
                             f"{sorted(SAMPLER_NAMES)} of LDA and the supervised models; "
                             f"{type(session.model).__name__} samples with sampler "
                             f"{sampler!r}, which has no token stepping yet "
                             f"({type(session.model.topic_sampler).__name__}): use "
                             f"LDA(sampler='light') or LDA(sampler='gibbs') to inspect tokens")
        corpus = session.corpus
        doc = self.check_document(corpus, doc)
        self.session = session
        self.doc = doc
        self.p0, self.p1 = int(corpus.doc_ptr[doc]), int(corpus.doc_ptr[doc + 1])
        self._rng = seed_state(seed, stream=INSPECTOR_STREAM)
        self.records: list[TokenStep] = []
        self.info = np.zeros(info_layout.size(len(session.model.proposal_kinds)))
        self._pass: StepPass | None = None

    @staticmethod
    def check_document(corpus: Any, doc: Any, argument: str | None = "doc") -> int:
        """``doc`` as the number of a document of ``corpus`` with tokens, else refused: the
        one check of the inspector's document and of its widget's picker. The messages name
        the document and the valid range (``"document 100000 is out of range: this corpus
        has 400 documents, 0 to 399"``) and, unless ``argument`` is None (the widget's plain
        words), the argument too."""
        n = int(corpus.n_docs)
        if argument is not None:
            doc = check.integer(argument, doc)
        elif isinstance(doc, (bool, np.bool_)) or not isinstance(doc, (int, np.integer)):
            raise TypeError(f"document must be a whole number, got {doc!r}")
        doc = int(doc)
        if not 0 <= doc < n:
            also = f" ({argument} must be an integer in [0, {n - 1}])" if argument else ""
            raise ValueError(f"document {doc} is out of range: this corpus has {n} "
                             f"document{'s' if n != 1 else ''}, 0 to {n - 1}{also}")
        if corpus.doc_ptr[doc + 1] == corpus.doc_ptr[doc]:
            raise ValueError(f"document {doc} has no tokens to inspect: choose another one "
                             f"(0 to {n - 1})")
        return doc

    @property
    def rng(self) -> Rng:
        """The inspector's xoshiro state (``uint64[4]``, its own). Assign a generator state to
        replay a sweep: it is checked and copied, so the session's stream is never advanced
        through it."""
        return self._rng

    @rng.setter
    def rng(self, state: Any) -> None:
        self._rng = check.generator_state("rng", state)

    # ------------------------------------------------------------------ position
    @property
    def n_tokens(self) -> int:
        """Tokens in the document."""
        return self.p1 - self.p0

    @property
    def position(self) -> int:
        """Position of the next token to step (``n_tokens`` once a pass is finished)."""
        return 0 if self._pass is None else self._pass.position

    @property
    def done(self) -> bool:
        """Whether the current pass has stepped every token; the next step starts a new
        pass."""
        return self._pass is not None and self._pass.position == self.n_tokens

    @property
    def last(self) -> TokenStep | None:
        """The latest step's record."""
        return self.records[-1] if self.records else None

    @property
    def sampler(self) -> str:
        """The session model's topic sampler (a key of ``SAMPLER_NAMES``)."""
        return self.session.model.sampler

    def __repr__(self) -> str:
        return (f"TokenInspector(doc={self.doc}, token {self.position} of {self.n_tokens}, "
                f"{type(self.session.model).__name__} sampler={self.sampler!r}, "
                f"{len(self.records)} steps made)")

    # ------------------------------------------------------------------ stepping
    def _context(self) -> StepContext:
        """The replay's view of the chain now (its current problem and state) and of this
        inspector's document, stream and info record (``samplers.stepping``)."""
        s = self.session
        return StepContext(s.problem, s.state, self.doc, self.p0, self.p1, self._rng, self.info)

    def step(self) -> TokenStep:
        """Resample the next token of the document as the model's sampler would; return what
        happened. After the last token the next call starts a new pass (as the next sweep
        would), reading the settings and loading the document as a sweep does at a
        document's start; if the session sampled since the previous step, the document is
        reloaded from the new state first (``TokenStep.reloaded``)."""
        with self.session.locked():
            ctx = self._context()
            if self._pass is None or self.done:
                self._pass = stepping.start_pass(ctx, self.session.model)
            p = self._pass
            reloaded = stepping.sync(ctx, p)
            i = self.p0 + p.position
            exact, proposals = stepping.distributions(ctx, p, i)
            move = stepping.step(ctx, p, proposals)
            w = int(self.session.problem.tokens.words[i])
            rec = TokenStep(self.doc, i - self.p0, i, self.session.corpus.vocabulary[w], w,
                            move.old, move.new, p.model.sampler, move.steps, exact,
                            move.proposals, reloaded)
        self.records.append(rec)
        return rec

    def run_document(self) -> list[TokenStep]:
        """Step the remaining tokens of the current pass (a whole new pass when it is finished
        or not started); return their records."""
        if self.done:
            self._pass = None
        out = [self.step()]
        while not self.done:
            out.append(self.step())
        return out

    def restart(self) -> None:
        """Abandon the current pass: the next step starts a new one at the first token."""
        self._pass = None

    @property
    def model(self) -> LDA:
        """The model of the current pass (its settings are read when a pass starts), else the
        session's."""
        return cast("LDA", self._pass.model) if self._pass is not None else self.session.model

    # ------------------------------------------------------------------ the distributions now
    def distributions(self, i: int) -> tuple[F64, dict[str, F64]]:
        """The exact conditional of token i and each proposal at its current topic (of the
        current pass's sampler; a pass is started if none is under way)."""
        with self.session.locked():
            ctx = self._context()
            p = self._pass if self._pass is not None \
                else stepping.preview(ctx, self.session.model)   # no pass begun: no draws
            return stepping.distributions(ctx, p, i)

    def conditional_table(self, tidy: bool = False) -> pd.DataFrame:
        """For the next token to step (the first of a new pass once one is finished): one row
        per topic with ``exact`` and one ``proposal_<kind>`` column per proposal of the
        sampler at the token's current topic. ``tidy=True``: (topic, distribution,
        probability) rows."""
        exact, proposals = self.distributions(self.p0 + self.position % self.n_tokens)
        return _conditional_frame(exact, proposals, tidy)

    def doc_tokens(self) -> pd.DataFrame:
        """The document's tokens with their current topics: ``position``, ``token`` (index in
        the corpus), ``word``, ``topic`` and ``next`` (the token the next step resamples)."""
        corpus = self.session.corpus
        with self.session.locked():
            topics = self.session.state.z[self.p0:self.p1].copy()
        ids = corpus.words[self.p0:self.p1]
        vocab = np.asarray(corpus.vocabulary, dtype=object)
        pos = np.arange(self.n_tokens)
        return pd.DataFrame({"position": pos, "token": pos + self.p0, "word": vocab[ids],
                             "topic": topics.astype(np.int64),
                             "next": pos == self.position % self.n_tokens})

    def steps_frame(self) -> pd.DataFrame:
        """Every MH step made so far, one row each, with the token's ``record`` number,
        ``position`` and ``word`` (see ``TokenStep.steps_frame``)."""
        frames = []
        for n, rec in enumerate(self.records):
            f = rec.steps_frame()
            f.insert(0, "word", rec.word)
            f.insert(0, "position", rec.position)
            f.insert(0, "record", n)
            frames.append(f)
        if not frames:
            return pd.DataFrame(columns=["record", "position", "word"] + STEP_COLUMNS)
        return pd.concat(frames, ignore_index=True)

    # ------------------------------------------------------------------ checks
    def check_state(self) -> None:
        """Raise ``RuntimeError`` unless the session's state is what the model rebuilds from
        its saved arrays (``validate_state``, then ``refresh_state`` on a copy): counts equal
        to those of ``z``, the light sampler's document row cleared, the weights' kernel view
        current. ``session.run`` may continue after the inspector exactly when this passes."""
        s = self.session
        with s.locked():
            st, model = s.state, s.model
            model.validate_state(st, s.problem)
            fresh = model.allocate_state(s.problem)
            kept, new = model.saved_arrays(st), model.saved_arrays(fresh)
            for k in model.saved_paths():
                new[k][...] = kept[k]
            model.refresh_state(fresh, s.problem)
            for k in ("n_wk", "n_k", "n_dk", "eta_kt", "r"):
                a, b = _derived(st, k), _derived(fresh, k)
                # b: the fresh state has the parts a has
                if a is not None and not np.array_equal(a, cast(Array, b)):
                    raise RuntimeError(f"session state {k!r} is not what the model rebuilds "
                                       f"from z and the weights")
            row = getattr(st.sampler, "ndk", None)
            if row is not None and row.any():
                raise RuntimeError("the light sampler's document row ndk is not cleared")


def _derived(state: State, name: str) -> Array | None:
    """A derived array of the state by name: the counts, or the weights' kernel view."""
    if name in state.counts._fields:
        return getattr(state.counts, name)
    sup = state.supervision
    return None if sup is None else getattr(sup.weights, name)


# ---------------------------------------------------------------------- presentation

def topic_colours(K: int) -> list[str]:
    """K distinct light background colours (hex), one per topic, readable under black text:
    hues a golden angle apart, two lightness levels alternating."""
    out = []
    for k in range(K):
        h = (k * 0.381966) % 1.0
        light_level = 0.80 if k % 2 == 0 else 0.70
        r, g, b = colorsys.hls_to_rgb(h, light_level, 0.65)
        out.append(f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}")
    return out


# a token span stays whole: a line breaks between tokens, never inside a word or before its
# topic's subscript (the token inspector's widget keeps its tokens whole the same way)
TOKEN_STYLE = "display:inline-block;white-space:nowrap;"


def document_html(words: Sequence[str] | Array, topics: Sequence[int] | Array, K: int,
                  highlight: int | None = None, labels: Sequence[str] | None = None,
                  max_tokens: int = 200) -> str:
    """A document as the inspector shows it: its words as spans coloured by their assigned
    topic (``topic_colours``), each with the topic in a subscript and the topic's label in its
    tooltip, kept whole (``TOKEN_STYLE``: lines break between tokens only); the tokens of
    ``highlight`` in bold, the others faded. At most ``max_tokens`` words (then an ellipsis).
    HTML-escaped; a str to display (IPython's ``HTML``) or embed."""
    colours = topic_colours(K)
    spans = []
    for word, topic in list(zip(words, topics))[:max_tokens]:
        k = int(topic)
        name = labels[k] if labels is not None and k < len(labels) else f"topic {k}"
        style = f"{TOKEN_STYLE}background:{colours[k]};padding:1px 4px;border-radius:3px;"
        if highlight is not None:
            style += "font-weight:bold;" if k == highlight else "opacity:0.45;"
        spans.append(f'<span class="topicsup-token" data-topic="{k}" '
                     f'title="{html.escape(name)}" style="{style}">{html.escape(str(word))}'
                     f'<sub>{k}</sub></span>')
    more = " &hellip;" if len(words) > max_tokens else ""
    return ('<div class="topicsup-tokens" style="line-height:2.1;max-width:900px">'
            + " ".join(spans) + more + "</div>")


def text_html(text: str, spans: Sequence[tuple[int, int, int]], K: int,
              highlight: int | None = None, labels: Sequence[str] | None = None,
              max_tokens: int = 200) -> str:
    """A document's original text with its tokens marked: ``spans`` are (start, end, topic)
    of the tokens in ``text``; the tokens of ``highlight`` on their topic's colour in bold,
    the others underlined in theirs, each with its topic's label in a tooltip; the rest of
    the text (stop words, punctuation, line breaks) as written. Up to the ``max_tokens``-th
    token (then an ellipsis). HTML-escaped."""
    colours = topic_colours(K)
    # a lone surrogate (bytes decoded with surrogateescape) cannot reach a UTF-8 page: "?",
    # one character for one, so the spans still fall where they did
    text = text.encode("utf-8", "replace").decode("utf-8")
    parts = []
    at = 0
    for start, end, topic in spans[:max_tokens]:
        k = int(topic)
        name = labels[k] if labels is not None and k < len(labels) else f"topic {k}"
        if k == highlight:
            style = f"background:{colours[k]};font-weight:bold;padding:0 2px;border-radius:3px;"
        else:
            style = f"border-bottom:2px solid {colours[k]};"
        parts.append(html.escape(text[at:start]))
        parts.append(f'<span class="topicsup-token" data-topic="{k}" '
                     f'title="{html.escape(name)}" style="{style}">'
                     f"{html.escape(text[start:end])}</span>")
        at = end
    if len(spans) > max_tokens:
        parts.append(" &hellip;")
    else:
        parts.append(html.escape(text[at:]))
    return ('<div class="topicsup-text" style="white-space:pre-wrap;line-height:1.7;'
            'max-width:900px">' + "".join(parts) + "</div>")
