# Exercise 00-2: answers written from the task text alone (notebooks/00_setup.ipynb), without reading the checker.
# %% wrong: only the key line; COURSE_PROVIDER is not switched, so the course still uses local
env_text = """
DEEPSEEK_API_KEY=sk-xxxx
"""
# %% wrong: uses the OpenAI key variable for DeepSeek
env_text = """
COURSE_PROVIDER=deepseek
OPENAI_API_KEY=sk-xxxx
"""
# %% wrong: copied the lines from .env.example but left them commented out
env_text = """
# COURSE_PROVIDER=deepseek
# DEEPSEEK_API_KEY=sk-xxxx
"""
# %% wrong: key line left empty instead of a (fake) placeholder key
env_text = """
COURSE_PROVIDER=deepseek
DEEPSEEK_API_KEY=
"""
# %% wrong: YAML-style "key: value" lines instead of KEY=value
env_text = """
COURSE_PROVIDER: deepseek
DEEPSEEK_API_KEY: sk-xxxx
"""
# %% wrong: generic COURSE_API_KEY (the custom provider's key) instead of DEEPSEEK_API_KEY
env_text = """
COURSE_PROVIDER=deepseek
COURSE_API_KEY=sk-xxxx
"""
# %% wrong: picks the provider by model id (COURSE_MODEL) instead of COURSE_PROVIDER
env_text = """
COURSE_MODEL=deepseek-chat
DEEPSEEK_API_KEY=sk-xxxx
"""
# %% right: the two lines in the other order, no leading blank line
env_text = """DEEPSEEK_API_KEY=sk-xxxx
COURSE_PROVIDER=deepseek
"""
# %% right: built from a list of lines with join, another placeholder key
env_text = "\n".join([
    "COURSE_PROVIDER=deepseek",
    "DEEPSEEK_API_KEY=sk-0000000000000000",
])
# %% right: the obvious two lines inside the given triple-quoted string
env_text = """
COURSE_PROVIDER=deepseek
DEEPSEEK_API_KEY=sk-xxxx
"""
# ---- held-out round: a second reader, given the task texts after issue 54 changed the checkers ----
# %% wrong: the key goes in the wrong variable - OPENAI_API_KEY instead of DeepSeek's DEEPSEEK_API_KEY
env_text = """
COURSE_PROVIDER=deepseek
OPENAI_API_KEY=sk-xxxx
"""
# %% wrong: the provider line is missing - only the key is set, so the course still uses the default local provider
env_text = """
DEEPSEEK_API_KEY=sk-xxxx
"""
# %% wrong: both lines copied from .env.example but left commented out with "# ", so nothing is set
env_text = """
# COURSE_PROVIDER=deepseek
# DEEPSEEK_API_KEY=sk-xxxx
"""
# %% wrong: the model id is typed as the provider name (COURSE_PROVIDER=deepseek-chat is not a preset)
env_text = """
COURSE_PROVIDER=deepseek-chat
DEEPSEEK_API_KEY=sk-xxxx
"""
# %% wrong: the key line is copied empty from .env.example (DEEPSEEK_API_KEY= with no placeholder), so the key is missing
env_text = """
COURSE_PROVIDER=deepseek
DEEPSEEK_API_KEY=
"""
# %% wrong: the second line sets the base URL instead of the key, so DeepSeek's key is missing
env_text = """
COURSE_PROVIDER=deepseek
COURSE_BASE_URL=https://api.deepseek.com
"""
# %% wrong: the key is put in COURSE_API_KEY (the custom provider's variable), not DEEPSEEK_API_KEY
env_text = """
COURSE_PROVIDER=deepseek
COURSE_API_KEY=sk-xxxx
"""
# %% wrong: YAML-style "KEY: value" lines instead of KEY=value, which a .env parser does not read as assignments
env_text = """
COURSE_PROVIDER: deepseek
DEEPSEEK_API_KEY: sk-xxxx
"""
# %% right: the key line first, value in double quotes, a different fake placeholder
env_text = """
DEEPSEEK_API_KEY="sk-0000placeholder0000"
COURSE_PROVIDER=deepseek
"""
# %% right: built from a list of lines joined with newlines, no leading blank line
env_text = "\n".join(["COURSE_PROVIDER=deepseek", "DEEPSEEK_API_KEY=sk-xxxx"]) + "\n"
