"""scikit-learn estimators for every model: ``fit`` / ``predict`` / ``transform``.

``SupervisedLDAClassifier`` (any supervised model, ``model=``; by default the preset of the
hinge or the logistic loss; ``MedLDAClassifier`` is its name for the hinge),
``SupervisedLDARegressor`` (a real response: ``SLDA``'s Gaussian or the epsilon-insensitive
loss) and ``LDATransformer`` (unsupervised topics: ``components_`` and ``transform`` to topic
proportions, like the ``lda`` package) accept the same documents: a document-term count matrix
(the output of ``CountVectorizer``, so they sit at the end of a ``Pipeline``; a scipy sparse
matrix, an array or a DataFrame of counts), raw texts, token lists or a ``Corpus``. Under the
hood each fit is one ``Session`` (multi-task) or one per class (one-vs-all), kept in
``sessions_`` for inspection with the usual views.

Parameters take scikit-learn's names where it has one (``LatentDirichletAllocation``'s):
``n_components`` is the number of topics (the models' ``K``; formerly ``n_topics``),
``max_iter`` the training sweeps (formerly ``n_iter``), ``doc_topic_prior`` and
``topic_word_prior`` the Dirichlet parameters (the models' ``alpha`` and ``beta``, formerly so
named), ``random_state`` and ``n_jobs`` as in scikit-learn. The old names work until the next
release, with a ``FutureWarning`` naming the new one (``RENAMED``).

One way for each thing. Every model is built in one place from a loss and a sampler
(``_supervised_model``: the preset of ``models.presets`` that trains them, else
``SupervisedLDA``), or given whole (``model=``); ``y`` is read by ``labels.make_labels`` after
scikit-learn's target checks, and the form it came in (``labels.LabelForm``) gives the
predictions back in it; predictions and scores are the label task's (``Task.predict``,
``Task.score`` of ``model.task(corpus)``), one-vs-all's too: its binary models' scores side by
side, read by the task of all the labels (argmax for multi-class, > 0 for multi-label).

Each estimator declares its parameters once (``_parameter_constraints``,
``estimators._params``): which model parameter each sets and how the estimator checks it;
the model is built from that table, and the checks, the parameters ``model=`` replaces and a
loss's settings follow from it. The modules: ``classifier``, ``regressor``, ``transformer``,
the documents' handling they share (``_documents``, ``_one_session``) and the table's reading
(``_params``).

scikit-learn's conventions hold (``tests/test_estimators.py`` runs ``check_estimator``):
count matrices are checked by ``validate_data`` (``n_features_in_``, ``feature_names_in_``
for a DataFrame, whose column names then serve as the vocabulary), unfitted estimators raise
``NotFittedError``, targets are checked by ``check_classification_targets``, ``classes_`` and
the predictions keep the type of the labels given (ints stay ints), and a document's
prediction does not depend on the other documents predicted with it (each is folded in on a
random stream of its own, ``kernels.fold_in``).

Pandas in, pandas out: documents in a pandas Series (texts, token lists) or a DataFrame
(counts) get ``predict``, ``decision_function`` and ``transform`` (hence ``fit_transform`` and
``set_output(transform="pandas")``) back as a Series or DataFrame carrying their index, the
values the same as for an array; any other input gets arrays, as before. A pandas ``y`` beside
pandas documents in ``fit`` is aligned by index as ``Corpus`` aligns labels: the same entries
in another order are reordered, any other difference is a ``ValueError`` naming both.
"""

from __future__ import annotations

from ._documents import one_vs_rest
from ._params import DEPRECATED, RENAMED
from .classifier import LOSS_DEFAULTS, STRATEGIES, MedLDAClassifier, SupervisedLDAClassifier
from .regressor import SupervisedLDARegressor
from .transformer import LDATransformer

__all__ = ["DEPRECATED", "LDATransformer", "LOSS_DEFAULTS", "MedLDAClassifier", "RENAMED",
           "STRATEGIES", "SupervisedLDAClassifier", "SupervisedLDARegressor", "one_vs_rest"]
