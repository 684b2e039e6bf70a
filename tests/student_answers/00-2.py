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
