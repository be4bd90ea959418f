"""Diet and allergy slots: diets named or described by what is not eaten
(:func:`described_diet`), allergens (:func:`allergy_slots`) and dietary restrictions. Pure."""

from __future__ import annotations

import re

from .model import ZH_PARTICLE_TAIL, Slot, clean_value

DIET = re.compile(
    r"(?i)\b(?P<en>vegetarian|vegan|pescatarian|halal|kosher|keto)\b|\bketo(?:genic)?\b(?P<keto>)"
    r"|(?P<zh>纯素|全素|吃素|素食|清真|生酮|鱼素|海鲜素|蛋奶素)"
)
ZH_DIETS = {
    "纯素": "vegan",
    "全素": "vegan",
    "鱼素": "pescatarian",
    "海鲜素": "pescatarian",
    "蛋奶素": "vegetarian",
    "吃素": "vegetarian",
    "素食": "vegetarian",
    "清真": "halal",
    "生酮": "keto",
}
"""The guide's diet for each Chinese diet word (全素 and 纯素 are vegan, 鱼素 and 海鲜素
pescatarian)."""
_SEVERITY = r"(?:严重|轻微|轻度|有点|有些|特别|非常|很|超级?|会)?"
"""How strong an allergy is ("我对花生严重过敏"): said between the allergen and 过敏, not part
of the allergen."""
_ALLERGY = re.compile(
    r"(?i)^\W*(?:my\s+|food\s+)*(?:allergies|allergens?|allergic to|过敏源?|过敏原|过敏的东西)"
    r"\s*[:：]\s*"
    r"(?P<l>[^.;!?。！？]+)"
    r"|\ball?er?gic to (?P<a>[\w -]+?(?:(?:,\s*|\s+and\s+|\s+or\s+)(?!so\b|but\b)[\w-]+"
    r"(?:\s[\w-]+)?)*?)(?=[.;!?(—–]|\s-\s|,\s*(?:so|but|which|and i)\b"
    r"|[,，]\s*(?:所以|但|因为|不过)|\s+(?:so|but|which)\b|$)"
    r"|\b(?P<b>[a-z-]+(?: [a-z-]+)?) allergy\b"
    r"|过敏(?:的|源)(?:是|为)(?P<e>[\u4e00-\u9fff]{1,6}?)(?=[，,。！!？?；;]|$)"
    r"|我?对(?P<c>[\u4e00-\u9fff、和]{1,12}?)(?:都|也)?" + _SEVERITY + r"过敏"
    r"|我?(?P<d>[\u4e00-\u9fff]{1,4}?)(?:类)?(?:都|也)?" + _SEVERITY + r"过敏"
    r"|(?<![A-Za-z])(?P<g>[A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?)\s*(?:都|也)?过敏"
)
_LIST_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|、|和|跟|及)\s*")


_ALLERGIC = re.compile(r"(?i)\ball?er?gic\b|过敏")


def allergy_slots(clause: str) -> list[Slot]:
    """Each allergen named in ``clause`` ("allergic to shellfish and sesame" → shellfish,
    sesame; "过敏的是核桃" → 核桃; "对花生和芒果过敏" → 花生, 芒果), also a food the clause
    says the user cannot have when the reason given is an allergy ("Peanuts are a big no for me
    — I'm allergic", "海鲜我一点都不能碰，过敏")."""
    m = _ALLERGY.search(clause)
    if m is not None and m.group("d") and m.start() > 0 and _ALLERGIC.search(clause[: m.start()]):
        m = None  # "…不能碰，过敏": the bare word after a comma names no allergen itself
    if m is None:
        avoided = restriction_slot(clause) if _ALLERGIC.search(clause) else None
        if avoided is None:
            return []
        return [Slot("user", "allergy", avoided.object, multi_valued=True)]
    raw = next(g for g in m.groups() if g)
    if m.group("b") and re.match(r"(?i)\s+to\s+\w", clause[m.end() :]):
        # "mild allergy to penicillin": the allergen follows, the words before qualify it
        raw = re.match(r"(?i)\s+to\s+(?P<a>[\w -]+?)(?=[,.;!?(—–]|\s-\s|$)", clause[m.end() :])
        raw = raw.group("a") if raw else ""
    raw = re.split(r"\s*(?:[—–(（]|\s-\s)", raw)[0]  # "shellfish — shrimp, crab": shellfish
    raw = re.sub(r"(?i)\s+(?:fyi|btw|lol|too|as well|though)$", "", raw.strip())
    raw = re.sub(r"^(?:.*[是就])(?=[\u4e00-\u9fff]{1,6}$)", "", raw)  # "查出来是坚果" → 坚果
    raw = re.sub(r"^[\u4e00-\u9fff]*?对(?=[\u4e00-\u9fff])", "", raw)  # "而且对芒果" → 芒果
    out: list[Slot] = []
    for part in _LIST_SPLIT.split(raw):
        value = clean_value(re.sub(_ALLERGEN_LEAD, "", part))
        if value and value.lower() not in {"serious", "severe", "food", "an", "the", "我"}:
            out.append(Slot("user", "allergy", value.lower(), multi_valued=True))
    return out


_ALLERGEN_LEAD = re.compile(
    r"(?i)^(?:(?:a|an|the|my|all|really|pretty|very|super|quite)\s+)*(?:severe|serious|mild|bad|slight"
    r"|minor|major|light|strong|deadly|life-threatening|nasty|terrible)?\s*(?=\S)"
)
"""Words that say how bad an allergy is ("a mild peanut allergy", "a bad shellfish allergy"):
not part of the allergen."""
_FOODS = (
    "dairy|gluten|lactose|sugar|caffeine|alcohol|nuts|peanuts|shellfish|eggs?|soy|pork|beef|meat"
    "|fish|seafood|spicy food|salt|wheat|garlic|onions?|red meat|raw fish|sushi|coffee|milk"
)
_RESTRICTION = re.compile(
    r"(?i)\b(?:i\s+)?(?:can't|cannot|can not|don't|do not|never|shouldn't|mustn't)\s+(?:eat|drink)"
    r"\s+(?P<a>[\w -]+?)(?=[,.;!?(—–，。；！？]|\s+(?:and|so|but|because|for|anymore)\b|$)"
    r"|\bnothing\s+(?:with\s+)?(?P<b>[a-z-]+(?: [a-z-]+)?)\s+(?:for me|in my|in the|please)\b"
    r"|^nothing\s+(?:with\s+)?(?P<g>[a-z-]+)(?=[,.;!?]|$)"
    r"|\bno\s+(?P<h>[a-z-]+(?: [a-z-]+)?)\s+in\s+(?:my|the|our)\s+(?:meals?|meal plans?|recipes?"
    r"|food|dishes|menu|diet)\b"
    r"|(?<![A-Za-z])(?P<c>gluten|dairy|lactose|nut|egg|soy|sugar|meat|pork|alcohol|caffeine)-free\b"
    r"|(?<![A-Za-z])(?P<d>lactose|gluten|fructose) intolerant\b"
    r"|(?:不能|不可以|不敢|不让|别让我|从不|不)我?(?:吃|喝|碰)(?P<e>[\u4e00-\u9fff]{1,6}?)"
    r"(?=[，,。！!？?；;了的]|$)"
    r"|(?P<f>乳糖|麸质|酒精)不耐受?"
    r"|\bcan(?:'t|not| not)\s+(?:have|tolerate|handle|do)\s+(?P<i>" + _FOODS + r")\b"
    r"|\bcan(?:'t|not| not)\s+(?:do|handle|stomach|tolerate)\s+(?:anything\s+|any\s+)?"
    r"(?P<cd>[a-z][a-z-]+(?:\s(?!at\b|all\b|any\b)[a-z][a-z-]+)?)(?=\s*(?:[,.;!?—–]|\s-\s|$)"
    r"|\s+(?:at\s+all|anymore|any\s+more|either|though|sadly|unfortunately|food|stuff)\b)"
    r"|\bcan(?:'t|not| not)\s+(?:have|tolerate|handle)\s+(?:any\s+)?(?P<i2>(?:[a-z][\w-]*\s)?"
    r"(?:drinks?|snacks?|sweets|desserts?|candy|carbs|sugary\s+\w+|fried\s+\w+|juice|soda|beer"
    r"|wine|spicy\s+\w+|raw\s+\w+))\b"
    r"|\bi\s+(?:(?:always|strictly|completely)\s+)?(?:avoid|stay\s+away\s+from|steer\s+clear\s+of"
    r"|cut\s+out|gave\s+up)\s+(?P<av>" + _FOODS + r")\b"
    r"|\b(?:on\s+an?\s+)?(?P<j>low-?\s?(?:sodium|salt|sugar|carb|fat|fodmap))\s+diet\b"
    r"|\bno\s+(?P<k>" + _FOODS + r")(?:\s+after\s+\w+)?\s+for\s+me\b"
    r"|(?P<l>(?:(?!我)[\u4e00-\u9fffA-Za-z]){1,6}?)\s*我?(?:是)?\s*(?:碰|吃|喝)?\s*"
    r"(?:(?:一点都|一点也|一点儿都|一口都|一口也|一滴都|一滴也|完全|一律|一概|绝对|都|也)不能(?:碰|吃|喝|沾)"
    r"|不能碰)"
    r"|(?P<s>(?:(?!我)[\u4e00-\u9fff]){1,6}?)\s*我?(?:是|真的|实在)?(?:吃|喝|碰)不了(?!那么|这么|太多|多少|完|很多)"
    r"|(?:^|[，,。；;：:\s])(?P<t>(?:(?!我)[\u4e00-\u9fff]){1,6}?)\s*(?:我|我是|是)?(?:基本|从来|一律|完全"
    r"|一概|根本|绝对|向来)?(?:是)?(?:不吃|不碰|不沾|不喝)(?:的|了)"
    r"|(?:吃|喝)不了(?P<u>[\u4e00-\u9fff]{1,4}?)(?=[，,。！!？?；;了的]|$)"
    r"|(?:^|[，,。；;：:\s])(?P<zx>(?:(?!我)[\u4e00-\u9fff]){1,4}?)(?:的东西|的|类)?\s*我?(?:是)?"
    r"(?:真的|实在|完全|根本|一点都|一点也|真|是真)?不行(?=[，,。！!？?；;了啊]|$)"
    r"|(?:医生让我|得|要)少(?P<m>盐|油|糖|吃辣)|忌口(?:的是)?(?P<n>[\u4e00-\u9fff]{1,4}?)(?=[，,。！!？?；;]|$)"
    r"|戒了?(?P<p>糖|酒|咖啡|奶茶|碳水|辣)"
    r"|(?:^|[,.;:!?—–]\s*)(?P<q>[A-Za-z][\w-]*(?: [a-z][\w-]*)?)(?:'s|’s|\s+is|\s+are)\s+"
    r"(?:(?:a\s+(?:hard\s+|total\s+|big\s+)?no(?:-?\s?go)?)|off\s+the\s+table|off[- ]limits"
    r"|out(?=\s+for\s+me)|not\s+an\s+option"
    r"|a\s+no\s+for\s+me)(?:\s+for\s+me)?\b"
)
"""What the user cannot eat or drink ("can't eat gluten", "no dairy for me", "不吃牛肉",
"医生不让喝咖啡", "lactose intolerant" → lactose)."""


def restriction_items(value: str) -> list[str]:
    """The foods of a restriction said as a list ("pork or shellfish" → pork, shellfish;
    "猪肉和海鲜" → 猪肉, 海鲜): each is avoided on its own, so each is its own value."""
    items = [clean_value(part) for part in _LIST_SPLIT.split(value)]
    return [i for i in items if i] or [value]


_FOOD_TALK_EN = re.compile(
    r"(?i)\b(?:eat|eating|ate|food|foods|diet|meals?|dish(?:es)?|cook\w*|coeliac|celiac"
    r"|intoleran\w*|allerg\w*|religious|halal|kosher|stomach|gut|texture|gag|taste|tastes"
    r"|recipes?|menu|spicy|lunch|dinner|breakfast|snacks?)\b"
)


_TASTE_ZH = re.compile(
    r"辣|麻辣|酸|甜|咸|油|油腻|生冷|冰|海鲜|香菜|葱|蒜|姜|羊肉|牛肉|猪肉|内脏|榴莲|芒果"
)
_EATING_ZH = re.compile(r"吃|喝|胃|肚子|口味|拉肚子|过敏")
"""Words of eating in a Chinese clause ("辣的我真的不行，一吃就胃疼"): what the user "cannot
take" there is food."""


def _food_said(value: str, clause: str) -> bool:
    """True when a thing said to be "off the table" / "a no-go" is food: a food word
    (:data:`_FOODS`), or a clause that speaks of eating, diets or intolerance."""
    return bool(re.fullmatch(rf"(?i)(?:{_FOODS})", value.strip())) or bool(
        _FOOD_TALK_EN.search(clause)
    )


_TASTE_EN = re.compile(r"(?i)spicy|fried|deep-fried|raw|sweet|greasy|oily|salty|too salty|hot")
"""How food tastes, said after "nothing" ("nothing spicy please"): a limit on food."""
_NOT_FOOD_ZH = frozenset(
    {"太多", "很多", "多", "太晚", "太饱", "东西", "饭", "太快", "那么多", "这么多", "多少"}
)
_FOOD_LEAD_ZH = re.compile(
    r"^.*?(?:以后|今后|从此|往后|交代|提醒我?|医生说|说|让我|就是)(?=[\u4e00-\u9fff]{1,4}$)"
)
"""Words before a food the avoided span starts on ("以后辛辣的" → 辛辣的, "提醒我生的东西" →
生的东西)."""
_NOT_AT_ALL = re.compile(
    r"(?i)\s+(?:at\s+all|whatsoever|of\s+any\s+kind|in\s+any\s+form|either|ever)$"
)
"""A tail that stresses the limit ("no alcohol at all"), not part of the food."""


def restriction_slot(clause: str) -> Slot | None:
    """What the user cannot eat or drink, as said (kind ``constraint``), or None."""
    m = _RESTRICTION.search(clause)
    if m is None:
        return None
    value = next(g for g in m.groups() if g)
    if m.group("q") and not _food_said(m.group("q"), clause):
        return None  # "Meetings before ten are off the table": nothing eaten is named
    if m.group("cd") and not _food_said(m.group("cd"), clause):
        return None  # "I can't do mornings": nothing eaten is named
    bare = m.group("b") or m.group("g")
    if bare and not (_TASTE_EN.fullmatch(bare) or _food_said(bare, clause)):
        return None  # "Nothing fancy.": nothing eaten is named
    if m.group("zx") and not (_TASTE_ZH.fullmatch(m.group("zx")) or _EATING_ZH.search(clause)):
        return None  # "冬天我真的不行": nothing eaten is named
    value = clean_value(re.sub(r"(?i)^(?:any|anything with|a|an|the)\s+", "", value))
    value = _NOT_AT_ALL.sub("", value)
    if re.search(r"[\u4e00-\u9fff]", value):
        value = _FOOD_LEAD_ZH.sub("", value)
    if not value or value.lower() in {"it", "that", "this", "them", "much", "more", "too"}:
        return None
    if ZH_PARTICLE_TAIL.fullmatch(value) or value in _NOT_FOOD_ZH:
        return None  # "JS 我基本不碰了", "周末不能吃太多": nothing eaten is named
    return Slot("user", "dietary_restriction", value.lower(), multi_valued=True)


def restriction_slots(clause: str) -> list[Slot]:
    """:func:`restriction_slot`, one slot per food when it names a list ("海鲜和啤酒都不能碰"
    → 海鲜, 啤酒; "can't eat pork or shellfish" → pork, shellfish)."""
    one = restriction_slot(clause)
    if one is None:
        return []
    items = restriction_items(one.object)
    return [Slot("user", one.predicate, i.lower(), multi_valued=True) for i in items]


_NO_EAT = re.compile(
    r"(?i)\b(?:don't|do not|dont|never|can't|cannot|won't|no longer|stopped|avoid|cut out|gave up"
    r"|give up|not even|without|no)\b|不吃|不碰|不沾|不能吃|戒了|不要|不含|都不|也不|不"
)
_MEAT = re.compile(r"(?i)(?<!red )\bmeats?\b|(?<![猪牛羊鸡鸭鹅驴马兔狗鱼肥瘦])肉|荤")
"""Meat as a whole ("no meat", "不吃肉", "其他肉"): one kind of meat named ("pork", "猪肉",
"red meat") is a dietary restriction, never a diet."""
_FISH = re.compile(r"(?i)(?<!raw )(?<!shell)\bfish\b|\bseafood\b|(?<![生鳗])鱼|海鲜|水产")
"""Fish or seafood as a whole: "shellfish" or "raw fish" alone is a restriction."""
_ANIMAL = re.compile(r"(?i)\banimal (?:products?|foods?)|动物(?:制品|产品|性食品)")
_EGG_DAIRY = re.compile(r"(?i)\b(?:dairy|eggs?|milk|cheese|honey)\b|蛋|奶|蜂蜜")
_DIET_PARTS = re.compile(r"(?i)[,，;；.。!！]|\bbut\b|\bexcept\b|但是?|不过|倒是|除了")
_PLANT_BASED = re.compile(r"(?i)\bplant[- ]based\b|\bfully plant\b|植物性饮食|全素")


def described_diet(clause: str, *, meatless: bool = False) -> str | None:
    """The guide's diet word for a diet described rather than named, read part by part (the
    clause cut at commas and "but"): the foods of a part with a negation are excluded, those of
    a part without one are eaten. No animal products (or no meat and no eggs or dairy), or
    "plant-based" → ``vegan``; no meat and no fish → ``vegetarian``; no meat but fish eaten →
    ``pescatarian`` ("I'll eat fish but no other meat", "只吃鱼，其他肉都不吃"); else None
    (one food avoided is a ``dietary_restriction``). ``meatless``: the clause names a
    vegetarian diet already, so meat and fish are out whatever the parts say ("吃素，蛋奶也不碰"
    → vegan)."""
    if _PLANT_BASED.search(clause):
        return "vegan"
    excluded: set[str] = {"meat", "fish"} if meatless else set()
    eaten: set[str] = set()
    for part in _DIET_PARTS.split(clause):
        found = {
            name
            for name, pattern in (
                ("meat", _MEAT),
                ("fish", _FISH),
                ("animal", _ANIMAL),
                ("egg_dairy", _EGG_DAIRY),
            )
            if pattern.search(part)
        }
        (excluded if _NO_EAT.search(part) else eaten).update(found)
    if "animal" in excluded or {"meat", "egg_dairy"} <= excluded:
        return "vegan"
    if "meat" in excluded and "fish" in excluded:
        return "vegetarian"
    if "meat" in excluded and "fish" in eaten:
        return "pescatarian"
    return None


_ANIMAL_FLESH = (
    "meat|chicken|pork|beef|lamb|turkey|bacon|ham|steak|burgers?|sausages?"
    "|肉|荤|鸡肉|猪肉|牛肉|羊肉|鸭肉|培根|火腿"
)
_SEA = "fish|seafood|shellfish|shrimp|prawns|salmon|tuna|sushi|鱼|海鲜|虾|贝类|三文鱼"
_ANIMAL_OTHER = "eggs?|dairy|cheese|milk|butter|yogurt|honey|鸡蛋|蛋|牛奶|奶制品|奶酪|蜂蜜"
_CARBS = "carbs|bread|rice|pasta|noodles|sugar|potatoes|碳水|米饭|面条|面食|主食|糖"
_FAMILIES: dict[str, frozenset[str]] = {
    "flesh": frozenset(_ANIMAL_FLESH.split("|")),
    "sea": frozenset(_SEA.split("|")),
    "animal": frozenset(_ANIMAL_OTHER.split("|")),
    "carbs": frozenset(_CARBS.split("|")),
    "pork": frozenset({"pork", "bacon", "ham", "猪肉", "培根", "火腿"}),
    "alcohol": frozenset({"alcohol", "beer", "wine", "酒", "啤酒"}),
    "shellfish": frozenset({"shellfish", "shrimp", "prawns", "虾", "贝类"}),
}
DIET_EXCLUDES: dict[str, frozenset[str]] = {
    "vegan": frozenset({"flesh", "sea", "animal", "pork", "shellfish"}),
    "vegetarian": frozenset({"flesh", "sea", "pork", "shellfish"}),
    "pescatarian": frozenset({"flesh", "pork"}),
    "keto": frozenset({"carbs"}),
    "halal": frozenset({"pork", "alcohol"}),
    "kosher": frozenset({"pork", "shellfish"}),
}
"""The food families each named diet leaves out: what ends the diet when the user eats it
again ("I eat fish again" ends vegan and vegetarian, not pescatarian)."""

_RESUMABLE = f"{_ANIMAL_FLESH}|{_SEA}|{_ANIMAL_OTHER}|{_CARBS}|alcohol|beer|wine|酒|啤酒"
_SELF_EN = r"(?:^|\bi\s+|\bi'?ve\s+|\bi\s+have\s+|\bi'?m\s+|\bi\s+am\s+|\bim\s+)"
RESUMED_FOOD = re.compile(
    rf"(?i){_SELF_EN}(?:(?:just|recently|finally|actually)\s+)?(?:(?:started|start|began|begun"
    rf"|went\s+back\s+to|gone\s+back\s+to|am\s+back\s+to|'m\s+back\s+to)\s+(?:eating|to\s+eat"
    rf"|having|drinking|to\s+drink)\s+(?:some\s+)?(?P<en>{_RESUMABLE})\b"
    rf"|(?:eat|drink)\s+(?:some\s+)?(?P<en1>{_RESUMABLE})\s+(?:again|now|these\s+days)\b"
    rf"|(?:eating|having|drinking)\s+(?:some\s+)?(?P<en4>{_RESUMABLE})\s+again\b)"
    rf"|{_SELF_EN}(?:(?:just|recently|finally)\s+)?(?:reintroduced|added)\s+(?P<en2>{_RESUMABLE})"
    rf"\s+back\b"
    rf"|(?:^|\b(?:and|but|so)\s+)(?P<en3>{_RESUMABLE})\s+(?:is|are)\s+back\s+on\s+the\s+menu\b"
    rf"|(?:^|我)(?:最近|现在|已经|又)*(?:又|重新|恢复)(?:开始)?(?:吃|喝)(?:起)?(?P<zh>{_RESUMABLE})"
    rf"|(?:^|我)(?:最近|现在|已经)*(?:也)?开始(?:吃|喝)(?P<zh2>{_RESUMABLE})了"
)
"""A food the user eats again ("I started eating fish again", "back to eating meat now",
"eggs are back on the menu", "我又开始吃肉了", "最近重新吃鱼了"): said of the user themselves (a
clause that opens on the verb, on "I", or on 我), never of another person ("my son eats meat
again")."""
ENDED_DIET = re.compile(
    r"(?i)\b(?:i'?m|i\s+am|im)\s+(?:no\s+longer|not)\s+(?:a\s+|an\s+)?(?:strict(?:ly)?\s+)?"
    r"(?P<a>vegetarian|vegan|pescatarian|keto|halal|kosher)\b"
    r"|\b(?:quit|stopped|gave\s+up(?:\s+on)?|ditched|dropped|went\s+off|gone\s+off|i'?m\s+off)\s+"
    r"(?:being\s+)?(?:a\s+|an\s+|the\s+)?(?P<b>vegetarian|vegan|pescatarian|keto|halal|kosher)"
    r"(?:ism|\s+diet)?\b"
    r"|\bno\s+longer\s+(?:eat|follow|do|keep)\s+(?:a\s+)?(?P<c>vegetarian|vegan|pescatarian|keto"
    r"|halal|kosher)\b"
    r"|(?:不再|不|没再|没有再)(?:坚持)?(?P<z>吃素|纯素|素食|生酮|吃清真)了"
    r"|不再(?:是|坚持|吃)?(?P<z2>吃素|纯素|素食|生酮|清真)"
    r"|(?P<z3>吃素|纯素|素食|生酮)(?:已经|早就)?(?:停了|放弃了|戒了|不搞了|结束了)"
    r"|放弃了?(?P<z4>吃素|纯素|素食|生酮)"
)
"""A named diet the user no longer keeps ("I'm not vegan anymore", "quit keto", "no longer
vegetarian", "不吃素了", "不再吃素", "生酮已经停了")."""
_OTHER_PERSON = re.compile(
    r"(?i)\b(?:my|his|her|their|our)\s+\w+(?:\s+\w+)?\s*$|\b(?:he|she|they|we)\s*$"
    r"|(?:他|她|他们|她们|我(?:妈|爸|老婆|老公|儿子|女儿|朋友|同事|家人|室友|爷爷|奶奶|哥|姐|弟|妹)\S{0,2})"
    r"(?:也|都|已经|早就)?$"
)
"""Another person right before the words that end a diet: their diet, not the user's."""


def ended_diet(clause: str) -> str | None:
    """The guide's name of a diet ``clause`` says the user no longer keeps, or None."""
    m = ENDED_DIET.search(clause)
    if m is None or _OTHER_PERSON.search(clause[: m.start()]):
        return None  # "my sister quit being vegan", "我妈不吃素了": her diet
    if m.group("a") and not re.search(
        r"(?i)\bno\s+longer\b|\b(?:anymore|any\s+more|these\s+days)\b|\bnot\b.*\bnow\b",
        clause,
    ):
        return None  # "I'm not vegan, just vegetarian": a contrast, not an end
    for name in ("z", "z2", "z3", "z4"):
        if m.group(name):
            word = m.group(name)
            return ZH_DIETS.get(word) or ZH_DIETS[word.removeprefix("吃")]  # 吃清真 → 清真
    return next(g for g in (m.group("a"), m.group("b"), m.group("c")) if g).lower()


def resumed_food(clause: str) -> str | None:
    """The food ``clause`` says the user eats again, as said (lower case), or None."""
    m = RESUMED_FOOD.search(clause)
    if m is None:
        return None
    return next(g for g in m.groups() if g).lower()


def _families(food: str) -> set[str]:
    return {name for name, words in _FAMILIES.items() if food.lower() in words}


def diet_lifted(diet: str, said: str) -> bool:
    """True when ``said`` (a diet the user ended, or a food they eat again) ends ``diet``: the
    same diet, a diet stricter than the one ended (not vegetarian any more ends vegan too), or a
    diet that leaves the food out ("I eat fish again" ends vegan and vegetarian)."""
    diet, said = diet.lower(), said.lower()
    if said in DIET_EXCLUDES:
        ended = DIET_EXCLUDES[said]
        return diet == said or (diet in DIET_EXCLUDES and ended < DIET_EXCLUDES[diet])
    return bool(_families(said) & DIET_EXCLUDES.get(diet, frozenset()))


def diet_or_allergy_slot(clause: str) -> Slot | None:
    """The user's diet (``vegetarian``…), an allergen, or what they cannot eat or drink
    named in ``clause``."""
    allergens = allergy_slots(clause)
    if allergens:
        return allergens[0]
    m = DIET.search(clause)
    if m:
        if m.group("en"):
            value = m.group("en").lower()
        elif m.group("zh"):
            value = ZH_DIETS[m.group("zh")]
        else:
            value = "keto"  # "ketogenic"
        if value == "vegetarian" and described_diet(clause, meatless=True) == "vegan":
            value = "vegan"  # "我吃素好多年了，全素，蛋奶都不碰": no eggs or dairy either
        return Slot("user", "diet", value)
    described = described_diet(clause)
    if described is not None:
        return Slot("user", "diet", described)
    return restriction_slot(clause)


__all__ = [
    "DIET",
    "DIET_EXCLUDES",
    "ENDED_DIET",
    "RESUMED_FOOD",
    "ZH_DIETS",
    "allergy_slots",
    "described_diet",
    "diet_lifted",
    "diet_or_allergy_slot",
    "ended_diet",
    "restriction_items",
    "restriction_slot",
    "restriction_slots",
    "resumed_food",
]
