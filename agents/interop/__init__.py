"""Agents from elsewhere: your own by import path (`mypkg.mymodule:MyAgent`,
`my_agent.py:MyAgent`; `external`), and our agents as OpenSpiel bots beside OpenSpiel's own
(`openspiel_bots`, needs the `openspiel` extra)."""
