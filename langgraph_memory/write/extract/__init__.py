"""Extraction: turn one (already redacted) user turn into structured ``Candidate`` s.

Two extractors share one output type (:class:`~langgraph_memory.write.types.Candidate`);
neither produces free-text summaries: every candidate's ``text`` is the user's own (redacted)
clause and its content is the ``(subject, predicate, object)`` triple.

Modules (import from them directly; this package re-exports nothing):

* :mod:`.rule_extractor` — :class:`RuleExtractor`, Chinese and English patterns for
  preferences, constraints, stable facts, corrections ("不是X，是Y", "actually it's Y",
  "scratch that"), explicit "remember …" / "记住…" and "from now on …" / "以后…". Objects are
  normalised through :mod:`langgraph_memory.write.lexicon` so one fact stated differently maps
  to the same ``(subject, predicate)``. Pure.
* :mod:`.rules_answer`, :mod:`.rules_facts`, :mod:`.rules_preferences` — the three rule tables,
  tried in that order (first hit wins); :mod:`.builders` turns a rule's match into a hit,
  :mod:`.values` holds the hit type and value shaping, :mod:`.fragments` the shared regex
  fragments, :mod:`.corrections` the correction patterns. Pure.
* :mod:`.markers` — cue words (hedges, explicit and correction markers, questions) and the
  clause splitter. Pure.
* :mod:`.injection` — :func:`~.injection.detect_injection`. Pure.
* :mod:`.orders` — whether a clause is an order to the assistant (:func:`~.orders.not_an_order`).
  Pure.
* :mod:`.one_off` — one-off requests, the single home of both tests (a this-turn marker in the
  clause; an instruction about the artifact in front of the user). Pure.
* :mod:`.llm_schema` and :mod:`.llm` — the optional :class:`~.llm.LLMExtractor` (a chat model
  called through ``with_structured_output``) and its schema; its candidates must be grounded in
  the turn or get ``source=model``. Calls the model (I/O), no other state.
"""
