"""The data model and the rules everything else builds on: records, scope, configuration, text
normalisation and tokenization, log-safe loggers. Modules here import only each other and
:mod:`langgraph_memory.errors`.
"""
