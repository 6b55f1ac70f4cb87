"""``sampler="auto"``, every model's default: the exact topic sampler expected to reach a
given fit first, chosen when the model meets its corpus (``LDA.resolve``, which a Session
calls), and the reason, which the Session keeps (``Session.sampler_choice``) and shows.

Unsupervised, by a cost model fitted to measurements (``_auto_costs``, written by
benchmarks/bench_auto.py; docs/samplers.md has the table): the time to a level of the log
joint is

    sweeps to the level (relative to collapsed Gibbs)  x  seconds per sweep(N, D, V, K),

the first 1 for the collapsed samplers (one chain law) and for the partially collapsed one a
curve that falls from about 2.2 toward a limit as the tokens per entry of the topic-word table
N / VK grow (``measured.SweepsFactor``; benchmarks/bench_mixing.py), the second a sum of the
terms the sampler's kernel has (per token, per token x K or sqrt K or the topics its word's
tokens occupy, per document x K, per sweep x V K), each coefficient fitted on 20 Newsgroups'
shapes at six K and on corpora of 10^7 and 10^8 tokens drawn from LDA; the candidate with the
least expected time is chosen; beyond the sizes measured (more than twice the largest corpus,
less than half the smallest) the reason says it extrapolates, from what to what. Supervised, by
the measured accuracy at equal wall-clock time of each sampler on 20 Newsgroups' 20 classes
(``SUPERVISED``, from the runs of benchmarks/bench_supervised_time.py that
``SUPERVISED_MEASURED`` names), looked up by the key the model's class declares
(``MEASURED_AS``, ``samplers.measured``: never by a class's name), the model's published
sampler where nothing was measured; on a corpus more than twice the measured one's tokens the
reason says the choice is extrapolated, and how far. A model with
samplers of its own (the PDP and HDP topic models), none in the cost model: its exact sampler.

Only exact samplers are candidates (never an approximate one such as ``partitioned``), and the
choice is a function of the model's parameters and the corpus's shape alone, never of the
machine (its cores, its CPU): the same seed gives the same chain everywhere. The cost model
was fitted on a 2-core machine, and the parallel candidate is costed on 2 threads.

A setting of a particular sampler given with ``sampler="auto"`` (``mh_steps=4``,
``kernel="dense"``) restricts the choice to the samplers that read it, and is passed on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from ..arrays import F64, Rng
from ..kernels.counts import Counts
from ..kernels.supervised import Term
from ..problem import Problem
from . import REGISTRY, TopicSampler
from ._auto_costs import (CANDIDATES, COSTS, COSTS_KS, COSTS_SMALLEST, COSTS_TOKENS,
                          SUPERVISED, SUPERVISED_MEASURED, SWEEPS)
from .measured import cite, measured_as

# SUPERVISED: per model key (``MEASURED_AS``), K measured -> ``Measured``: the best test
# accuracy at equal wall-clock time on 20 Newsgroups' 20 classes, kept at the paper's sampler
# unless another beat it by more than a point (benchmarks/bench_supervised_time.py, written by
# bench_auto.py); the nearest measured K (on a log scale) is used
MEASURED_ON = f"20 Newsgroups' 20 classes ({cite(SUPERVISED_MEASURED)})"
# where the measurement says something: corpora of at least a tenth of its 1.36 M tokens and
# K within a factor 2 of the measured ones; elsewhere (a demo corpus, K = 6) the paper's
# sampler
MEASURED_TOKENS = 1_360_021
# a corpus more than this many times the tokens measured is said to be extrapolated to
BEYOND = 2.0


def _millions(n: float) -> str:
    return f"{n / 1e6:.2f} M" if n < 1e7 else f"{n / 1e6:.0f} M"


def extrapolation(n_tokens: int, low: int, high: int) -> str:
    """What a reason adds when a corpus's size is outside the sizes measured (by more than
    ``BEYOND`` times): ``"; extrapolated from ... to ..."``, else ``""``."""
    sizes = _millions(low) if low == high else f"{_millions(low)}-{_millions(high)}"
    if n_tokens > BEYOND * high:
        return (f"; extrapolated: measured on {sizes} tokens, this corpus has "
                f"{_millions(n_tokens)} ({n_tokens / high:.0f}x"
                f"{'' if low == high else ' the most'})")
    if n_tokens * BEYOND < low:
        return f"; extrapolated: measured on {sizes} tokens, this corpus has {_millions(n_tokens)}"
    return ""


UNRESOLVED = ("sampler='auto' is chosen when the model meets its corpus: run it in a Session, "
              "or sample with model.resolve(problem)[0]")


@dataclass(frozen=True)
class Choice:
    """What ``sampler="auto"`` chose: the ``sampler`` and its ``settings``, the ``reason`` in
    a sentence, and for a cost-model choice the ``expected`` time to the level of each
    candidate relative to the chosen one (chain name -> ratio, 1 for the chosen)."""

    sampler: str
    settings: dict[str, Any]
    reason: str
    expected: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """The choice in one line: ``"sparse_gibbs: <reason>"``."""
        return f"{self.sampler}: {self.reason}"


@REGISTRY.register
@dataclass(frozen=True)
class Auto(TopicSampler):
    """The sampler chosen when the model meets its corpus (``samplers.auto``: a cost model
    fitted to measurements, unsupervised; the measured best at equal time, supervised). A
    model with ``sampler="auto"`` is a description; ``LDA.resolve(problem)`` (a Session calls
    it) gives the model with the chosen sampler."""

    name = "auto"
    chooses = True

    def sweep(self, problem: Problem, counts: Counts, own: Any, term: Term, supervised: bool,
              rng: Rng, d_start: int, d_end: int, info: F64) -> None:
        raise RuntimeError(UNRESOLVED)


def features(N: float, D: float, V: float, K: float) -> dict[str, float]:
    """The cost model's terms (benchmarks/bench_auto.py)."""
    return {"N": N, "NK": N * K, "NsqrtK": N * math.sqrt(K),
            "NKfill": N * K * -math.expm1(-N / (V * K)), "DK": D * K, "VK": V * K}


def sweeps_factor(chain: str, N: float, V: float, K: float) -> float:
    """The sweeps ``chain`` needs to a level relative to collapsed Gibbs on a corpus of N
    tokens and V words at K topics (``SweepsFactor``: by the tokens per entry N / VK)."""
    return SWEEPS[chain].at(N / (V * K))


def expected_seconds(chain: str, N: float, D: float, V: float, K: float) -> float:
    """Expected seconds to the level, in units of collapsed Gibbs's sweeps to it: seconds
    per sweep times the chain's sweeps factor."""
    f = features(N, D, V, K)
    return sweeps_factor(chain, N, V, K) * sum(c * f[t] for t, c in COSTS[chain].items())


# The one-thread collapsed samplers: on corpora or at K below those the costs were measured on
# (by more than BEYOND), auto picks among them, costed at the nearest shape measured
# (``clamped``). There the fit's per-token terms would be extrapolated past what they were
# fitted to (a thread pool's start and a Phi draw per sweep weigh more in a sweep of a few
# thousand tokens, or at K = 4), and the other candidates' case rests on fewer, cheaper sweeps
# not measured there. Settings given that name another sampler (mh_steps=, kernel=) still
# choose among those.
COLLAPSED = ("gibbs", "sparse_gibbs")


def below_measured(N: float, K: float) -> bool:
    """Whether a corpus of N tokens at K topics is below the sizes or the K the cost model was
    measured on, by more than ``BEYOND`` times."""
    return N * BEYOND < COSTS_TOKENS[0] or K * BEYOND < COSTS_KS[0]


def clamped(N: float, D: float, V: float, K: float) -> tuple[float, float, float, float]:
    """The nearest shape the costs were measured at: a corpus below the sizes measured (by
    more than ``BEYOND``) costed as the smallest one measured (``COSTS_SMALLEST``), K below
    the fewest measured raised to it; a shape within them unchanged."""
    if N * BEYOND < COSTS_TOKENS[0]:
        N, D, V = COSTS_SMALLEST
    return N, D, V, max(K, COSTS_KS[0])


# settings that make a candidate what it is (the parallel sampler's kernel); the others
# (mh_steps, threads) are a candidate's defaults, which settings given override
DEFINING = ("kernel",)


def _agrees(settings: dict[str, Any], given: dict[str, Any]) -> bool:
    return all(given[k] == settings[k] for k in DEFINING if k in given and k in settings)


def choose(model: Any, problem: Problem, given: dict[str, Any],
           accepts: Callable[[str, dict[str, Any]], bool]) -> Choice:
    """The sampler for ``model`` (an LDA-family model with ``sampler="auto"``) on ``problem``;
    ``given`` are the sampler settings the user gave (they restrict the candidates and are
    kept); ``accepts(sampler, settings)`` says whether the model takes that sampler with
    those settings (a sampler that would ignore a given setting is no candidate)."""
    if model.supervised:
        return _choose_supervised(model, problem, given, accepts)
    if type(model).ROLES["sampler"] is not REGISTRY:
        return _exact_own(model, given, accepts)
    N, D, V, K = (problem.n_tokens, problem.n_docs, problem.n_words, problem.K)
    cands = {c: (s, st) for c, (s, st) in CANDIDATES.items()
             if _agrees(st, given) and accepts(s, {**st, **given})}
    if not cands:
        return _published(model, given, "no measured sampler reads the settings given",
                          accepts)
    small = below_measured(N, K) and any(c in COLLAPSED for c in cands)
    if small:
        cands = {c: v for c, v in cands.items() if c in COLLAPSED}
    # a candidate the fit could not cost (a sweeps factor never measured: nan) is no
    # candidate, rather than one that wins or loses every comparison by accident
    shape = clamped(N, D, V, K) if small else (N, D, V, K)
    t = {c: expected_seconds(c, *shape) for c in cands}
    t = {c: v for c, v in t.items() if math.isfinite(v) and v > 0}
    if not t:
        return _published(model, given, "the cost model could not cost any sampler that "
                          "reads the settings given", accepts)
    best = min(t, key=t.__getitem__)
    sampler, settings = cands[best]
    ranked = sorted(t, key=t.__getitem__)
    runner = (f"; next {ranked[1]} x{t[ranked[1]] / t[best]:.2f}" if len(ranked) > 1 else "")
    among = ("; below the sizes measured, among the collapsed samplers, costed at the "
             "nearest shape measured" if small else "")
    reason = (f"expected first to the fit by the cost model (K = {K}, {N:,} tokens, {D:,} "
              f"documents, {V:,} words{runner}{among}){extrapolation(N, *COSTS_TOKENS)}")
    return Choice(sampler, {**settings, **given}, reason,
                  {c: t[c] / t[best] for c in ranked})


def _choose_supervised(model: Any, problem: Problem, given: dict[str, Any],
                       accepts: Callable[[str, dict[str, Any]], bool]) -> Choice:
    key = measured_as(type(model))
    table = SUPERVISED.get(key, {}) if key is not None else {}
    usable = {k: m for k, m in table.items()
              if _agrees(m.settings, given) and accepts(m.sampler, {**m.settings, **given})}
    if not usable:
        return _published(model, given, f"no measurement for {type(model).__name__} "
                          f"with these settings: its published sampler", accepts)
    K = problem.K
    if problem.n_tokens < MEASURED_TOKENS / 10 or not min(usable) / 2 <= K <= 2 * max(usable):
        return _published(model, given, f"{type(model).__name__} was measured on "
                          f"{MEASURED_ON} at K = {sorted(usable)}; this corpus is outside "
                          f"that: its published sampler", accepts)
    k_near = min(usable, key=lambda k: (abs(math.log(k / K)), k))
    best = usable[k_near]
    return Choice(best.sampler, {**best.settings, **given},
                  f"the best at equal wall-clock time at K = {k_near} on {MEASURED_ON}: "
                  f"{best.why}"
                  f"{extrapolation(problem.n_tokens, MEASURED_TOKENS, MEASURED_TOKENS)}")


def _exact_own(model: Any, given: dict[str, Any],
               accepts: Callable[[str, dict[str, Any]], bool]) -> Choice:
    """A model whose samplers are its own (no cost model fitted for them): its exact sampler
    that reads the settings given. The others are named in the reason: the PDP and HDP
    models' alias samplers are faster (76-79% less time per iteration at K = 1,024,
    benchmarks/results/nonparametric) but draw from stale tables, so only approximately
    invariant, and auto never picks an approximate sampler."""
    own = type(model).ROLES["sampler"]
    approximate = [n for n in own.names() if not own.get(n).exact]
    for name in own.names():
        part = own.get(name)
        if part.exact and not part.chooses and accepts(name, given):
            note = (f"; {', '.join(repr(n) for n in approximate)} approximate, run by name"
                    if approximate else "")
            return Choice(name, dict(given), f"the exact sampler of {type(model).__name__}"
                                             f"{note}")
    what = ", ".join(f"{k}={v!r}" for k, v in sorted(given.items()))
    raise ValueError(f"sampler='auto' runs an exact sampler, and no exact sampler of "
                     f"{type(model).__name__} uses {what}: name the sampler (sampler=...) "
                     f"whose settings these are")


def _published(model: Any, given: dict[str, Any], why: str,
               accepts: Callable[[str, dict[str, Any]], bool]) -> Choice:
    sampler = type(model).PUBLISHED_SAMPLER
    if not accepts(sampler, given):
        what = ", ".join(f"{k}={v!r}" for k, v in sorted(given.items()))
        raise ValueError(f"sampler='auto' has no candidate that uses {what}: name the sampler "
                         f"(sampler=...) whose settings these are")
    return Choice(sampler, dict(given), why)
