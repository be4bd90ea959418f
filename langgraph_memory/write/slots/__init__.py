"""Generic slot extraction: the ``(subject, predicate, object)`` of a clause no rule knows.

Used when the clause classifier says a clause is worth remembering and no rule of
:class:`~langgraph_memory.write.extract.rule_extractor.RuleExtractor` produced a candidate,
to add the attributes a rule missed, and to sharpen a rule's catch-all ``note``. Pure
functions, no state:

* constraints → the user's diet, allergen or what they cannot eat or drink
  (``dietary_restriction``: "can't eat gluten", "不吃牛肉"), else ``("assistant", "must" |
  "must_not", <the rule in the user's words>)``; the polarity comes from prohibition markers
  ("never", "don't", "avoid", "不要", "别", "禁止", "不得"…), everything else is an obligation;
* preferences → a typed value, else ``likes`` / ``dislikes`` with the liked thing (cut before
  its reason or comparison), else ``prefers`` with the clause;
* stable facts → typed values, timezones, spoken languages, places, employers, jobs, pets;
  else, part by part (the clause cut at commas and dashes), "my/our/the <attribute> is
  <value>", "我的/我们的<属性>是/用/叫<值>", counts and ages ("我们组一共九个人"), "我是<值>",
  "I have <value>", a name after a preposition ("sits behind Cloudflare"); otherwise ``note``
  with the clause (the user's own words, so nothing is paraphrased);
* corrections → the new and the old value when both are named ("Graz, not Linz",
  "是糯米不是米糕"), a bare new value ("打错了，是小闵"), else the facts of the clause.

Values are kept as the user said them (``topic_surface``: "green tea", "冰美式", "MySQL
8.0", "PST", "咖啡") and stop where the value stops: trailing time expressions ("last month",
"上个月"), explanations after a comma or dash, articles and politeness tails are cut. The
resolver stores the lexicon's canonical form beside the value (``metadata["canonical"]``).

Typed predicates of the labelling guide are found by meaning as well as by the lexicon:
answer length in words no table lists (:func:`length_slot`: "short and to the point", "别啰嗦",
"越细越好"), tools named by common words after a verb that takes a tool ("written in Go",
"i run arch"), cuisines ("Thai is my favourite cuisine"), a language named in a short
preference clause (:func:`language_preference`), Chinese hometowns and homes ("老家…", "我是X人",
"来X三年了", bounded by jieba and reduced to the city), jobs ("转行做了产品经理", "做 UX
designer", "I teach biology"), several allergens in one clause (:func:`allergy_slots`).

Values are also found by their type and grammar rather than by a cue list: budgets and
deadlines as money and date tokens in a spending or due clause (:func:`quantity_slot`, see
:mod:`~langgraph_memory.write.spans`: "$2,500, not $2,000" → "$2,500"), diets described by
what is not eaten (:func:`described_diet`: "I don't eat meat or fish" → vegetarian), jobs by
the shape of a job word ("本人护士", "I'm a midwife"), names by jieba's person tag ("我是张伟"),
a move to an organisation ("跳槽到了美团", "join Stripe"). A constraint clause that words no
obligation or prohibition (:data:`~.dispatch._RULE_WORDS`) is the typed fact it states.
Attributes left by chunking that name nothing ("对了我", "oops", "以前") are dropped
(:func:`meaningful_predicate`), and so are values that are only particles.

Modules (import from them directly; this package re-exports nothing), all pure:

* :mod:`.dispatch` — :func:`~.dispatch.slot_for` (the slots of a clause for a predicted kind)
  and :func:`~.dispatch.fact_slots`, which combine the others;
* :mod:`.model` — :class:`~.model.Slot` and value normalisation (``clean_value``, bounds,
  ``snake``, ``strip_lead``) every other module shares;
* :mod:`.triggers` — cue-led facts: places, hometowns, employers, jobs, names, pets;
* :mod:`.typed` — typed values: answer length, tools, cuisines, budgets and deadlines;
* :mod:`.diet` — diets, allergens and what the user cannot eat;
* :mod:`.preference` — constraints, likes and dislikes, answer language, timezones, spoken
  languages;
* :mod:`.shape` — free facts by the clause's grammar ("my X is Y", "我的X是Y", counts, "I
  have …"), corrections and bare values.
"""
