# notebooks/00_setup.ipynb 的参考答案。请先自己做一遍练习，再来看这里！

# %% exercise 00-1
needs_key = ["deepseek", "dashscope", "openai"]

# %% exercise 00-2
env_text = """
COURSE_PROVIDER=deepseek
DEEPSEEK_API_KEY=sk-xxxx
"""
