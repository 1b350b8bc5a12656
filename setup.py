"""Package metadata for `ta`, read from settings.ini (the single place dependencies are declared)."""
from configparser import ConfigParser
import setuptools

cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']
reqs = lambda key: cfg.get(key, '').split()

setuptools.setup(
    name=cfg['lib_name'], version=cfg['version'], description=cfg['description'],
    license='Apache Software License 2.0', author=cfg['author'], author_email=cfg['author_email'],
    url=cfg['git_url'], keywords=cfg['keywords'].split(), python_requires=f">={cfg['min_python']}",
    long_description=open('README.md', encoding='utf-8').read(), long_description_content_type='text/markdown',
    packages=setuptools.find_packages(include=['ta', 'ta.*']), include_package_data=True,
    package_data={'ta': ['checkpoints/*/*', 'checkpoints/*/*/*']},
    install_requires=reqs('requirements'),
    extras_require={k: reqs(f'{k}_requirements') for k in ('cuda', 'words', 'speakers', 'ray', 'train', 'dev')},
    entry_points={'console_scripts': cfg['console_scripts'].split(), 'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
    classifiers=['Programming Language :: Python :: 3', 'License :: OSI Approved :: Apache Software License'],
    zip_safe=False,
)
