"""A small Chinese/English sample for measuring token counters (written for this project).

Agent-style text of the kinds a prompt holds: user requests, assistant replies, rules,
tool outputs (JSON, logs, tables), code, and code-switched Chinese/English. Used by
:func:`langgraph_memory.context.token_reference.benchmark_token_counter` and the context benchmark
to report a counter's error against real tokenizers. Public domain (CC0).
"""

from __future__ import annotations

ZH_SAMPLES: tuple[str, ...] = (
    "以后都用中文回答我的问题，除非我明确要求用英文。",
    "请帮我查一下明天从上海虹桥到北京南的高铁，最好是上午九点以后出发的。",
    "好的，我找到了三班符合条件的列车：G2、G4 和 G6，其中 G4 最快，全程四小时二十八分钟。",
    "不要给财务部的王经理发邮件，所有报销单都直接提交到系统里。",
    "记住：我对花生过敏，推荐餐厅的时候一定要避开含花生的菜。",
    "这个季度的销售额比上个季度增长了百分之十二点五，主要来自华东地区的新客户。",
    "我再想想吧，可能下周再决定要不要换供应商。",
    "会议改到周四下午三点，地点在三楼的大会议室，请提前十分钟到场。",
    "根据你提供的日志，错误发生在数据库连接池耗尽之后，建议把最大连接数从二十调到五十，"
    "同时检查是否有长事务没有及时提交。",
    "用户反馈说手机端的登录页面在弱网环境下经常卡住，需要排查前端的超时设置。",
    "我们的目标是在月底之前完成第一版的内部测试，然后根据反馈再迭代两周。",
    "请把这份合同的第三条和第七条翻译成英文，注意保留原文中的法律术语。",
    "天气预报说周末会有大到暴雨，原定的户外团建活动可能需要改期。",
    "他上个月刚从杭州搬到深圳，现在在一家做自动驾驶的公司当算法工程师。",
    "订单号 20261129-8842 的物流状态显示已到达转运中心，预计两天内送达。",
    "你之前说的方案我觉得成本太高了，能不能给一个预算在五万元以内的替代方案？",
    "首先，打开设置页面；其次，选择“账户与安全”；最后，点击“修改密码”并按提示操作。",
    "这本书讲的是一个普通人在大时代里的选择，语言朴素，但是细节非常动人。",
    "检索结果：共找到 17 条相关记录，其中 5 条来自知识库，12 条来自历史对话。",
    "请注意，所有对外发送的报告都必须经过法务审核，并且不能包含客户的真实姓名。",
    "我更喜欢简洁的回答，不需要太多客套话，直接给结论和理由就行。",
    "实验组的转化率是百分之三点八，对照组是百分之三点一，差异在统计上是显著的。",
    "孩子下学期要上小学了，我们在考虑是选离家近的公立学校还是口碑更好的民办学校。",
    "服务器在凌晨两点十五分自动重启，原因是内存使用率持续超过百分之九十五。",
    "帮我总结一下这篇文章的核心观点，控制在一百字以内。",
    "周报：本周完成了用户画像模块的重构，修复了七个缺陷，下周计划接入新的推荐算法。",
    "老王说他下个月要去成都出差，顺便想去看看大熊猫基地。",
    "如果明天下雨，我们就改在室内的咖啡馆见面，地址我稍后发给你。",
    '{"城市": "北京", "温度": "零下三度", "天气": "晴", "空气质量": "良", "风力": "北风三级"}',
    "第一步：安装依赖；第二步：配置环境变量；第三步：运行单元测试，确认全部通过后再部署。",
)

EN_SAMPLES: tuple[str, ...] = (
    "From now on, always answer in English unless I explicitly ask for Chinese.",
    "Can you find me a flight from San Francisco to Seattle next Tuesday, ideally after 9am?",
    "I found three options: Alaska 1123 departs at 9:40, United 2287 at 11:05, and Delta 904 "
    "at 13:30. The Alaska flight is the cheapest at $189.",
    "Never send emails to bob@example.com; he left the company last month.",
    "Remember that I'm allergic to peanuts, so avoid recommending dishes that contain them.",
    "Revenue grew 12.5% quarter over quarter, driven mostly by new customers in the EMEA region.",
    "Maybe I'll switch vendors next week, I need to think about it a bit more.",
    "The meeting moved to Thursday at 3pm in the large conference room on the third floor.",
    "Based on the logs you shared, the error happens after the database connection pool is "
    "exhausted. I'd raise max_connections from 20 to 50 and look for long-running transactions.",
    "Users report that the mobile login page often hangs on slow networks; check the frontend "
    "timeout settings.",
    "Our goal is to finish the first internal beta by the end of the month and iterate for two "
    "more weeks based on feedback.",
    "Please translate clauses 3 and 7 of this contract into Chinese and keep the legal terms.",
    "The forecast says heavy rain this weekend, so the outdoor team event may be postponed.",
    "He moved from Boston to Austin last month and now works as a machine learning engineer.",
    "Order #20261129-8842 has reached the distribution center and should arrive within two days.",
    "Your earlier proposal is too expensive; could you suggest an alternative under $50,000?",
    "First open Settings, then choose 'Account & Security', and finally click 'Change password'.",
    "Caroline went to the LGBTQ support group yesterday and said it was really empowering.",
    "Search results: 17 matching records, 5 from the knowledge base and 12 from past chats.",
    "All external reports must be reviewed by legal and must not include customer names.",
    "I prefer short answers: skip the pleasantries and give me the conclusion and the reasons.",
    "The treatment group converted at 3.8% versus 3.1% for control (p = 0.012).",
    '{"city": "Seattle", "temp_c": 7.5, "conditions": "light rain", "wind": "SW 12 km/h", '
    '"humidity": 0.87}',
    "def fetch_user(user_id: str) -> dict:\n    row = db.execute('SELECT * FROM users WHERE "
    "id = ?', (user_id,)).fetchone()\n    return dict(row) if row else {}",
    "2026-11-29T02:15:07Z ERROR worker-3 OOMKilled: memory usage 95.2% > limit (4Gi); restarting",
    "| region | Q3 | Q4 |\n|---|---|---|\n| EMEA | 1.2M | 1.4M |\n| APAC | 0.9M | 1.1M |",
    "Melanie said she painted a sunrise over the lake last week and is thinking of selling it.",
    "Weekly report: refactored the user profile module, fixed seven bugs, and next week we plan "
    "to integrate the new recommendation model.",
    "If it rains tomorrow we'll meet at the cafe instead; I'll send you the address later.",
    "Step 1: install dependencies. Step 2: configure environment variables. Step 3: run the "
    "unit tests and deploy only when all of them pass.",
)

MIXED_SAMPLES: tuple[str, ...] = (
    "帮我把 README.md 里的 installation 部分改成 pip install langgraph-memory。",
    "这个 bug 出现在 compact_messages 函数里，ToolMessage 和 AIMessage 被拆开了。",
    "明天的 standup 改到 10:30，Zoom 链接不变：https://example.com/j/123456789",
    "用户 alice@example.com 反馈 API 返回 HTTP 429，rate limit 是每分钟 60 次。",
    '请用 JSON 格式输出：{"name": "张三", "age": 30, "city": "上海"}',
    "我们用 Qdrant 做向量检索，用 BM25 做关键词召回，再用 RRF 融合。",
    "Please reply in Chinese: 这个项目的 deadline 是 12 月 15 日。",
    "GPU 显存不够的话可以把 batch_size 从 32 调到 8，或者开启 gradient checkpointing。",
)


# Written after the presets in langgraph_memory.context.token_features were fitted:
# a held-out check.
ZH_HELDOUT_SAMPLES: tuple[str, ...] = (
    "昨晚的暴雨导致城区多条道路积水，交管部门建议市民尽量选择地铁出行。",
    "这款笔记本电脑的续航时间大约是十二个小时，重量不到一点三公斤，适合经常出差的人。",
    "请把下周二的客户拜访改到周三上午，并通知销售部的李娜和技术支持的陈刚。",
    "数据表明，过去五年里新能源汽车的市场份额从百分之五上升到了百分之三十以上。",
    "我已经把会议纪要上传到共享盘了，你看完之后在文档里直接批注就行。",
    "他说话总是慢条斯理的，但每次提出的建议都很有分量，大家都愿意听他的。",
    "如果你觉得这个方案可行，我们就按这个时间表推进；如果不行，周五之前告诉我。",
    "奶奶最近血压有点高，医生让她少吃咸的，每天早晚各量一次血压并记下来。",
    "这个接口目前不支持分页，一次最多返回一千条记录，超过的部分会被截断。",
    "春节期间客服热线的服务时间调整为每天上午九点到下午五点，节后恢复正常。",
    "小王负责前端页面，小张负责后端接口，测试由外包团队在下个迭代完成。",
    "我们在杭州西湖边找了一家小茶馆，点了一壶龙井，一直聊到天黑才回酒店。",
    "根据合同第十二条，任何一方提前解约都需要提前三十天书面通知对方。",
    "系统提示磁盘空间不足，请清理临时文件或者联系管理员扩容。",
    "她从小就喜欢画画，现在在一家动画公司做角色设计，已经参与了三部电影的制作。",
    "请注意：本次考试不允许携带任何电子设备，迟到十五分钟以上不得入场。",
    "这道菜的关键是火候，先大火爆炒葱姜蒜，再转小火慢炖二十分钟。",
    "经过三轮面试，我们决定录用第二位候选人，薪资按照上次讨论的区间执行。",
    "用户在反馈里提到，夜间模式下有些按钮的文字颜色太浅，几乎看不清。",
    "明年的预算会向研发倾斜，市场部的投放预算预计会减少百分之十五左右。",
)


def all_samples() -> dict[str, tuple[str, ...]]:
    """The samples by language: ``{"zh", "en", "mixed", "zh_heldout"}`` (the last one was
    written after the presets were fitted)."""
    return {
        "zh": ZH_SAMPLES,
        "en": EN_SAMPLES,
        "mixed": MIXED_SAMPLES,
        "zh_heldout": ZH_HELDOUT_SAMPLES,
    }


__all__ = ["EN_SAMPLES", "MIXED_SAMPLES", "ZH_HELDOUT_SAMPLES", "ZH_SAMPLES", "all_samples"]
